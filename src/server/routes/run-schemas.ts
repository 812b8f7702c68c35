/** The OpenAPI/JSON schemas of the run routes' answers and parameters (run-routes.ts). */
import { RunStatuses } from "../../domain/run.ts";
import { idSchema } from "../openapi/schema-primitives.ts";

export const nullableString = { type: ["string", "null"] } as const;

/** Run input and output: no schema of their own, they belong to the workflow. */
export const anyJson = (what: string) => ({
  description: `${what}: any JSON value (object, array, string, number, boolean or null).`,
});

/** A run's `error`: the persisted WorkflowFailure (domain/workflow-failure.ts), or null. */
const failureSchema = {
  type: ["object", "null"],
  description:
    "null unless the run failed or was cancelled, or is waiting blocked by non-determinism: " +
    "then the recorded failure.",
  properties: {
    name: { type: "string", description: "The error's name, e.g. NonRetryableError." },
    message: { type: "string" },
    stack: {
      type: ["string", "null"],
      description: "null unless the server exposes stacks (WF_EXPOSE_STACKS).",
    },
    nonRetryable: { type: "boolean", description: "True when retrying cannot help." },
    type: {
      type: "string",
      description:
        'The engine\'s own failures: "cancelled", "timeout", "nondeterminism", "expression" (a JSONata runtime error), "expression-budget" (an expression overspent its budget) or "quarantined".',
    },
  },
  additionalProperties: true,
} as const;

export const runSchema = {
  type: "object",
  required: [
    "runId",
    "workflow",
    "status",
    "input",
    "output",
    "error",
    "rootInstanceId",
    "parentRunId",
    "startedBy",
    "cancelRequested",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    runId: { type: "string" },
    workflow: { type: "string" },
    status: { type: "string", enum: RunStatuses },
    input: anyJson("The start input (null when none was given)"),
    output: anyJson("The workflow's return value once completed, else null"),
    error: failureSchema,
    rootInstanceId: nullableString,
    parentRunId: nullableString,
    startedBy: {
      ...nullableString,
      description:
        "The actor who started the run; a child run: its parent's starter. null only for a " +
        "run stored before starters were recorded that has no root instance.",
    },
    cancelRequested: { type: "boolean" },
    createdAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
  },
} as const;

export const historySchema = {
  type: "object",
  required: ["items", "nextCursor"],
  properties: {
    nextCursor: nullableString,
    items: {
      type: "array",
      items: {
        type: "object",
        required: ["seq", "type", "name", "at", "data"],
        properties: {
          seq: { type: "integer" },
          type: { type: "string" },
          name: nullableString,
          at: { type: "string", format: "date-time" },
          data: anyJson("The recorded value (see docs/api.md, History event), or null"),
        },
      },
    },
  },
} as const;

export const runIdParams = {
  type: "object",
  required: ["id"],
  properties: { id: idSchema },
} as const;

export const accepted = {
  type: "object",
  required: ["runId", "status"],
  properties: { runId: { type: "string" }, status: { type: "string", enum: RunStatuses } },
} as const;

export const acceptedExample = { runId: "order-1042", status: "waiting" };
