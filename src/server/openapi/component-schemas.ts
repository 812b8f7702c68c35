/**
 * Shared schemas, registered once with `$id` so routes reference them and
 * @fastify/swagger publishes them as OpenAPI components. Request schemas leave
 * additionalProperties open (unknown body fields are ignored); response
 * schemas list every field, all required, null when unset.
 */
import type { FastifyInstance } from "fastify";
import { MAX_USERS_PER_ASSIGNMENT } from "../../domain/limits.ts";
import { ProcessStates } from "../../domain/instance.ts";
import { TaskStatuses } from "../../domain/task.ts";
import { TaskEventTypes } from "../../domain/task-event.ts";
import {
  idSchema,
  nullable,
  taskDetailsProperties,
  timeSchema,
  varsSchema,
} from "./schema-primitives.ts";
import { actionProperties, excludeSchema, formUiSchema } from "../../domain/task-form-schema.ts";
import { ErrorReasons } from "../../domain/error-reasons.ts";
import { ErrorCodes } from "../../domain/errors.ts";
import { SERVER_PROBLEM_CODES } from "../errors/error-mapping.ts";

export const ref = (id: string) => ({ $ref: `${id}#` });

const AssigneeRequest = {
  $id: "AssigneeRequest",
  type: "object",
  description: '{ kind: "user" | "group", id } or { kind: "users", ids } (one user task per id).',
  required: ["kind"],
  properties: {
    kind: { type: "string", enum: ["user", "group", "users"] },
    id: idSchema,
    ids: { type: "array", minItems: 1, maxItems: MAX_USERS_PER_ASSIGNMENT, items: idSchema },
  },
  if: { properties: { kind: { const: "users" } } },
  then: { required: ["ids"] },
  else: { required: ["id"] },
};

const NextAssignment = {
  $id: "NextAssignment",
  type: "object",
  description: "An assignment attached to the same root (onAllCompleted, next).",
  required: ["assignee"],
  properties: {
    definitionKey: idSchema,
    assignee: ref("AssigneeRequest"),
    vars: varsSchema,
    ...taskDetailsProperties,
    onAllCompleted: ref("NextAssignment"),
  },
};

const TaskAssignee = {
  $id: "TaskAssignee",
  type: "object",
  required: ["kind", "id"],
  properties: { kind: { type: "string", enum: ["user", "group"] }, id: { type: "string" } },
};

const str = { type: "string" } as const;

const Task = {
  $id: "Task",
  type: "object",
  properties: {
    id: str,
    instanceId: str,
    rootInstanceId: str,
    definitionKey: str,
    assignee: ref("TaskAssignee"),
    assignedBy: str,
    status: { type: "string", enum: TaskStatuses },
    claimedBy: nullable(str),
    claimedAt: nullable(timeSchema),
    completedBy: nullable(str),
    completedAt: nullable(timeSchema),
    vars: nullable(varsSchema),
    createdAt: timeSchema,
    title: nullable(str),
    description: nullable(str),
    priority: { type: "integer", minimum: 0, maximum: 100 },
    dueAt: nullable(timeSchema),
    followUpAt: nullable(timeSchema),
    overdue: {
      type: "boolean",
      description: "Due, and still open or claimed, when the answer was made.",
    },
    form: {
      anyOf: [{ type: "object", additionalProperties: true }, { type: ["boolean", "null"] }],
    },
    formUi: { ...formUiSchema, type: ["object", "null"] },
    actions: {
      type: ["array", "null"],
      items: {
        type: "object",
        required: ["name", "label", "commentRequired"],
        properties: {
          name: str,
          label: { anyOf: [...actionProperties.label.anyOf, { type: "null" }] },
          commentRequired: { type: "boolean" },
        },
      },
    },
    actionRequired: { type: "boolean" },
    exclude: { ...excludeSchema, type: ["object", "null"] },
    owner: { ...nullable(str), description: "Whom a delegated task goes back to." },
    delegation: {
      type: ["string", "null"],
      enum: ["pending", "resolved", null],
      description: "pending: the delegate resolves it; resolved: back with its owner.",
    },
    action: { ...nullable(str), description: "The action the completion chose." },
    comment: { ...nullable(str), description: "The completion's comment." },
  },
};

const instanceProperties = {
  id: str,
  kind: { type: "string", enum: ["process", "referral"] },
  definitionKey: str,
  parentInstanceId: nullable(str),
  rootInstanceId: str,
  status: { type: "string", enum: ["running", "completed"] },
  processState: { type: ["string", "null"], enum: [...ProcessStates, null] },
  vars: varsSchema,
  startedBy: str,
  createdAt: timeSchema,
  completedAt: nullable(timeSchema),
  onAllCompleted: { type: ["object", "null"], additionalProperties: true },
  joinedAt: nullable(timeSchema),
};

const Instance = { $id: "Instance", type: "object", properties: instanceProperties };

const InstanceTree = {
  $id: "InstanceTree",
  type: "object",
  description: "An instance with its child instances and its tasks.",
  properties: {
    ...instanceProperties,
    children: { type: "array", items: ref("InstanceTree") },
    tasks: { type: "array", items: ref("Task") },
  },
};

const Completion = {
  $id: "Completion",
  type: "object",
  properties: {
    instanceId: str,
    allCompleted: { type: "boolean" },
    total: { type: "integer" },
    open: { type: "integer" },
    claimed: { type: "integer" },
    done: { type: "integer" },
    cancelled: { type: "integer" },
  },
};

const Definition = {
  $id: "Definition",
  type: "object",
  properties: { id: str, key: str, name: str, createdAt: timeSchema },
};

const AssignResult = {
  $id: "AssignResult",
  type: "object",
  properties: {
    instanceId: str,
    task: ref("Task"),
    tasks: { type: "array", items: ref("Task") },
  },
};

const Problem = {
  $id: "Problem",
  type: "object",
  description: "RFC 9457 problem details (application/problem+json).",
  properties: {
    type: str,
    title: str,
    status: { type: "integer" },
    detail: str,
    code: {
      type: "string",
      // The catalogue, plus the server's own: UnsupportedMediaType (415), Internal (500), Unavailable (503).
      enum: [...ErrorCodes, ...SERVER_PROBLEM_CODES],
    },
    reason: {
      type: "string",
      description: "The situation, finer than `code` and as stable (docs/api.md, Errors).",
      enum: [...ErrorReasons],
    },
  },
};

const TaskEvent = {
  $id: "TaskEvent",
  type: "object",
  description: "One change of a task, written in the same transaction as the change.",
  properties: {
    id: { ...str, description: "Grows with every event: the trail's order." },
    taskId: str,
    instanceId: str,
    rootInstanceId: str,
    type: { type: "string", enum: [...TaskEventTypes] },
    actor: { ...nullable(str), description: "Who made the change; null: the engine." },
    at: timeSchema,
    reason: nullable(str),
    status: { type: "string", enum: TaskStatuses, description: "The task after the change." },
    assignee: ref("TaskAssignee"),
    claimedBy: nullable(str),
    action: nullable(str),
    comment: { ...nullable(str), description: "A completion's comment, or the comment's text." },
  },
};

const pageOf = (id: string, item: string) => ({
  $id: id,
  type: "object",
  properties: {
    items: { type: "array", items: ref(item) },
    nextCursor: {
      ...nullable(str),
      description: "Pass as `cursor` for the next page; null at the end.",
    },
  },
});

/** Every property of a response schema is required: the JSON always carries it. */
function allRequired<T extends { properties?: Record<string, unknown> }>(s: T): T {
  return s.properties ? { ...s, required: Object.keys(s.properties) } : s;
}

const SCHEMAS = [
  AssigneeRequest,
  NextAssignment,
  ...[
    TaskAssignee,
    Task,
    Instance,
    InstanceTree,
    Completion,
    Definition,
    AssignResult,
    Problem,
    pageOf("TaskPage", "Task"),
    pageOf("InstancePage", "Instance"),
    pageOf("DefinitionPage", "Definition"),
    TaskEvent,
    pageOf("TaskEventPage", "TaskEvent"),
  ].map(allRequired),
];

export function registerSchemas(app: FastifyInstance): void {
  for (const s of SCHEMAS) app.addSchema(s);
}
