/**
 * The public shapes of durable workflows: what `workflow()` returns and what
 * workflow code sees as `ctx`.
 */
import type { AssigneeRequest } from "../../domain/assignee.ts";
import type { Duration } from "../../domain/duration.ts";
import type { HumanTaskResult, TaskPolicy } from "../../domain/human-task-result.ts";
import type { Vars } from "../../domain/vars.ts";
import type { FormUi, TaskActionRequest } from "../../domain/task-form.ts";
import type { TaskExclusionsRequest } from "../../domain/task-exclusions.ts";

export type {
  HumanTaskResult,
  TaskCompletion,
  TaskPolicy,
} from "../../domain/human-task-result.ts";

export interface RetryPolicy {
  /** Attempts in total, the first included (default 3; 1 = no retry). */
  maxAttempts?: number;
  /** Delay before the second attempt (default 100 ms). */
  initialInterval?: Duration;
  /** Multiplier per attempt (default 2). */
  backoff?: number;
  /** Upper bound of one delay (default 60 s). */
  maxInterval?: Duration;
}

export interface StepInput {
  /** `${runId}:${seq}` — the same for every attempt and after a crash: hand it to external systems. */
  idempotencyKey: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborted when the attempt times out. */
  signal: AbortSignal;
}

export type ErrorClass = abstract new (...args: never[]) => Error;

export interface StepOptions {
  retry?: RetryPolicy;
  /** Per-attempt timeout; a timed-out attempt is retried like any failure. */
  timeout?: Duration;
  /** Error names or classes that fail the step at once (NonRetryableError always does). */
  nonRetryable?: ReadonlyArray<string | ErrorClass>;
}

export type StepFn<T> = (input: StepInput) => T | Promise<T>;

export interface Saga {
  /** Compensation that calls ctx itself (e.g. ctx.step("refund", …)); runs as workflow code. */
  onFailure(compensation: () => Promise<unknown>): void;
  /** Compensation run as the step `name`. */
  onFailure(name: string, compensation: StepFn<unknown>, options?: StepOptions): void;
}

export interface HumanTaskOptions {
  assignee: AssigneeRequest;
  /** For several assignees (kind "users"); default "all". */
  policy?: TaskPolicy;
  /** Shown on the referral instance. */
  vars?: Vars;
  /** What the inbox shows as the task's name; the call's name when not given. */
  title?: string;
  description?: string;
  /** 0–100; 50 when not given. */
  priority?: number;
  /** When the task is due (a Date, or ISO 8601 text with its zone). */
  dueAt?: Date | string;
  /** When to look at the task again. */
  followUpAt?: Date | string;
  /** JSON Schema (2020-12) of the data the completer submits, checked on completion. */
  form?: Record<string, unknown> | boolean;
  /** How the form is shown: field order, labels, help texts, widgets. */
  formUi?: FormUi;
  /**
   * The named actions a completion chooses from (`{ approve: {}, reject: {
   * commentRequired: true } }`); the result's `action` is the one chosen.
   */
  actions?: Record<string, TaskActionRequest>;
  /** A completion must name one of `actions` (default: true when there are actions). */
  actionRequired?: boolean;
  /**
   * The four-eyes rule: who may not complete (nor claim) the task — `users` by id,
   * the process's `starter`, `earlierCompleters` of the process.
   */
  exclude?: TaskExclusionsRequest;
  /**
   * Gives up after this long: the unfinished tasks are cancelled and the call
   * resolves with `timedOut: true` (and `cancelled: true`, `completedBy` null).
   */
  timeout?: Duration;
}

/**
 * Where a child run's human tasks live. By default a child is a process of
 * its own (its root instance, under the child workflow's name).
 */
export interface ChildOptions {
  /**
   * The child's tasks go under this run's process: no process of its own, so
   * the starter's list and every task show the parent's process (a definition's
   * parallel branch). Its finish does not close that process; the parent's does.
   */
  inParentProcess?: boolean;
  /** The key the child's own process is listed under; default: the workflow's name. */
  processKey?: string;
}

export interface WorkflowContext {
  readonly runId: string;
  readonly tenantId: string;
  readonly workflow: string;
  /** Runs `fn` at least once and records its result; replay returns the record. */
  step<T>(name: string, fn: StepFn<T>, options?: StepOptions): Promise<T>;
  /** A durable timer. */
  sleep(duration: Duration): Promise<void>;
  sleepUntil(at: Date | number): Promise<void>;
  /** The oldest unconsumed signal `name` (also one sent before the call), or null after `timeout`. */
  waitForSignal<T = unknown>(name: string, options?: { timeout?: Duration }): Promise<T | null>;
  /**
   * The same wait, telling a timeout (`timedOut: true`) from a signal sent
   * without a payload (`timedOut: false, payload: null`), which waitForSignal
   * both answers with null.
   */
  waitForSignalOutcome<T = unknown>(
    name: string,
    options?: { timeout?: Duration },
  ): Promise<{ timedOut: false; payload: T } | { timedOut: true }>;
  /** Recorded clock, random and uuid: the same values on replay. */
  now(): number;
  random(): number;
  uuid(): string;
  /** True for runs that reach this point under code that has the patch; false for older runs. */
  patched(id: string): boolean;
  /** Ends this generation and restarts the workflow with `input` and an empty history. */
  continueAsNew(input: unknown): Promise<never>;
  /** Compensations run in reverse order when the workflow fails or is cancelled. */
  saga(): Saga;
  /**
   * Creates ordinary inbox task(s) under the run's root instance and resolves
   * when the policy is met; unfinished sibling tasks are then cancelled. With
   * `timeout`, resolves with `timedOut: true` when it passes first (open tasks
   * cancelled). It may also race other waits (Promise.race with ctx.sleep or
   * ctx.waitForSignal): whichever completes first wins, on replay too.
   */
  humanTask(name: string, options: HumanTaskOptions): Promise<HumanTaskResult>;
  /** Starts a child run (exactly once) and resolves with its output; its failure rethrows. */
  child<I, O>(
    workflow: WorkflowDefinition<I, O> | string,
    input?: I,
    options?: ChildOptions,
  ): Promise<O>;
  /** True once cancellation of this run was requested. */
  readonly cancelRequested: boolean;
}

export type WorkflowFn<I, O> = (ctx: WorkflowContext, input: I) => Promise<O>;

export interface WorkflowOptions {
  /** Default retry policy of this workflow's steps. */
  retry?: RetryPolicy;
}

export const WORKFLOW_MARK = "taskflow.workflow" as const;

export interface WorkflowDefinition<I = unknown, O = unknown> {
  readonly kind: typeof WORKFLOW_MARK;
  readonly name: string;
  readonly fn: WorkflowFn<I, O>;
  readonly options: WorkflowOptions;
}

/** Any workflow, whatever its input and output types (input is contravariant, hence never). */
export type AnyWorkflowDefinition = WorkflowDefinition<never, unknown>;

export function isWorkflowDefinition(v: unknown): v is AnyWorkflowDefinition {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { kind?: unknown }).kind === WORKFLOW_MARK &&
    typeof (v as { name?: unknown }).name === "string" &&
    typeof (v as { fn?: unknown }).fn === "function"
  );
}
