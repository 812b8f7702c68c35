/**
 * The definition language as TypeScript sees it once a document has passed
 * validation (validate-definition.ts). The JSON Schema in definition-schema.ts
 * is the contract; these types mirror it for the code that reads valid
 * definitions (the store, the diff, the future interpreter). See
 * docs/definitions.md for the reference.
 */

import type { FormUi, LocalizedText } from "../../domain/task-form.ts";
import type { TaskExclusionsRequest } from "../../domain/task-exclusions.ts";

/** A JSONata expression evaluated against `{ vars, last, now }`. */
export type Expression = string;

/** A value that is either given as is or computed: `{ "expr": "<JSONata>" }`. */
export interface Computed {
  expr: Expression;
}

/** "P2D", "PT1H30M", "2d", "1h30m", or milliseconds. */
export type DurationLiteral = string | number;

export type Assignee =
  | { user: string }
  | { group: string }
  | { users: string[] }
  /** Evaluates to a user id, `{ user }`, `{ group }` or `{ users }`. */
  | Computed;

export type CompletionPolicy = "all" | "any" | { atLeast: number };

export interface Escalation {
  after: DurationLiteral | Computed;
  reassign?: Assignee;
  addAssignee?: Assignee;
}

export interface UserTaskState {
  type: "userTask";
  assignee: Assignee;
  /** Text with `{{ JSONata }}` holes. */
  title: string;
  description?: string;
  completion?: CompletionPolicy;
  /** JSON Schema (2020-12) of what the completer submits. */
  form?: Record<string, unknown>;
  /** How the form is shown (domain/task-form.ts). */
  formUi?: FormUi;
  /** The four-eyes rule (domain/task-exclusions.ts). */
  exclude?: TaskExclusionsRequest;
  actions?: Record<string, { next: string; label?: LocalizedText; commentRequired?: boolean }>;
  /** Taken on a completion that names no action (or when `actions` is absent). */
  next?: string;
  due?: DurationLiteral | Computed;
  escalation?: Escalation;
  resultVar?: string;
}

export interface ChoiceState {
  type: "choice";
  choices: { when: Expression; next: string }[];
  otherwise: string;
}

export interface Branch {
  start: string;
  states: Record<string, State>;
}

export interface ParallelState {
  type: "parallel";
  branches: Branch[];
  join?: CompletionPolicy;
  next: string;
  resultVar?: string;
}

export interface TimerState {
  type: "timer";
  duration?: DurationLiteral | Computed;
  /** Evaluates to an ISO 8601 instant or epoch milliseconds. */
  until?: Expression;
  next: string;
}

export interface WaitSignalState {
  type: "waitSignal";
  signal: string;
  timeout?: DurationLiteral | Computed;
  onTimeout?: string;
  next: string;
  resultVar?: string;
}

export interface RetrySpec {
  maxAttempts?: number;
  initialInterval?: DurationLiteral;
  backoff?: number;
  maxInterval?: DurationLiteral;
}

export interface CallState {
  type: "call";
  step: string;
  input?: Expression;
  retry?: RetrySpec;
  timeout?: DurationLiteral;
  resultVar?: string;
  next: string;
  /** Taken when the step fails for good; without it the run fails. */
  onError?: string;
}

export type SubProcessState = {
  type: "subProcess";
  input?: Expression;
  resultVar?: string;
  next: string;
} & ({ definition: string; version?: number } | { workflow: string });

export interface RespondState {
  type: "respond";
  status: number;
  body?: Expression;
  next?: string;
}

export interface EndState {
  type: "end";
}

export interface TerminateState {
  type: "terminate";
  reason?: string;
}

export type State =
  | UserTaskState
  | ChoiceState
  | ParallelState
  | TimerState
  | WaitSignalState
  | CallState
  | SubProcessState
  | RespondState
  | EndState
  | TerminateState;

export type StateType = State["type"];

export const STATE_TYPES: readonly StateType[] = [
  "userTask",
  "choice",
  "parallel",
  "timer",
  "waitSignal",
  "call",
  "subProcess",
  "respond",
  "end",
  "terminate",
];

/**
 * States where a run stops until something outside it happens (a person, the
 * clock, a signal, a child). A cycle through none of them would spin.
 */
export const WAITING_TYPES: ReadonlySet<string> = new Set([
  "userTask",
  "timer",
  "waitSignal",
  "subProcess",
]);

export const TRIGGER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export interface Trigger {
  method: (typeof TRIGGER_METHODS)[number];
  /** "/orders/{id}": literal segments and `{name}` parameters. */
  path: string;
}

export interface ProcessDefinition {
  key: string;
  name: string;
  version?: number;
  /** JSON Schema (2020-12) of the process vars. */
  vars?: Record<string, unknown>;
  start: string;
  states: Record<string, State>;
  triggers?: Trigger[];
}
