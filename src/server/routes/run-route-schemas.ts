/**
 * The schemas of run-routes.ts's routes (validation and /openapi.json),
 * one per route, kept out of the handlers so a route reads as what it does.
 */
import { RunStatuses } from "../../domain/run.ts";
import { HISTORY_PAGE_BYTES, MAX_HISTORY_PAGE, RUN_LIST_ORDERS } from "../../engine/index.ts";
import { historyExample, runExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import {
  accepted,
  acceptedExample,
  anyJson,
  historySchema,
  nullableString,
  runIdParams,
  runSchema,
} from "./run-schemas.ts";
import { createdRangeQueryProperties } from "../requests/created-range-params.ts";
import {
  actorHeaders,
  idSchema,
  nameSchema,
  pageQueryProperties,
  tenantHeaders,
} from "../openapi/schema-primitives.ts";

/** POST /v1/workflows/:name/runs */
export const postWorkflowsByNameRunsSchema = {
  tags: ["runs"],
  summary: "Start a run (idempotent by id: an existing id returns that run with 200)",
  description:
    "Starts a run of the workflow `name`, started by the X-Actor-Id (with the static " +
    "directory, a known user). `name` is a workflow registered in this server process, " +
    "or one a worker node served within the last hour (the run waits, pending, until " +
    "a worker claims it); any other name is 404, as is every name starting with `taskflow.` " +
    "(the engine's own workflows). `id` makes the start " +
    "idempotent: an existing run with that id is returned with 200 instead of a new one. " +
    "The body is optional.",
  headers: actorHeaders,
  params: { type: "object", required: ["name"], properties: { name: idSchema } },
  body: {
    type: "object",
    properties: {
      input: anyJson("The run's input, handed to the workflow function"),
      id: idSchema,
    },
    examples: [{ id: "order-1042", input: { orderId: "1042", amount: 250 } }],
  },
  response: {
    200: jsonResponse("A run with this id already existed", accepted, acceptedExample),
    201: jsonResponse("The run was created", accepted, {
      runId: "order-1042",
      status: "pending",
    }),
    ...apiErrors({ body: true }, "NotFound"),
  },
};

/** GET /v1/runs */
export const getRunsSchema = {
  tags: ["runs"],
  summary: "A page of runs, filtered by status, workflow, starter and creation time",
  description:
    "The tenant's runs, paged: in id order (`order=oldest`, the default), or newest " +
    "first by creation time (`order=newest`). Every filter is optional and they combine. " +
    "`createdAfter` is inclusive, `createdBefore` exclusive; a `createdAfter` later " +
    "than `createdBefore` is a 400. A cursor carries no filter: send the same filters " +
    "and order with it.",
  headers: tenantHeaders,
  querystring: {
    type: "object",
    additionalProperties: false,
    properties: {
      status: {
        type: "string",
        enum: RunStatuses,
        description: "Only runs in this status.",
        examples: ["waiting"],
      },
      workflow: {
        ...idSchema,
        description: "Only runs of this workflow.",
        examples: ["order"],
      },
      startedBy: {
        ...idSchema,
        description:
          "Only runs this actor started (the X-Actor-Id of the start); child runs " +
          "count as started by their parent's starter.",
        examples: ["alice"],
      },
      order: {
        type: "string",
        enum: RUN_LIST_ORDERS,
        description:
          "oldest: by id (for generated ids, the order of creation); newest: by " +
          "creation time, descending.",
        examples: ["newest"],
      },
      ...createdRangeQueryProperties,
      ...pageQueryProperties,
    },
  },
  response: {
    200: jsonResponse(
      "A page of runs",
      {
        type: "object",
        required: ["items", "nextCursor"],
        properties: {
          items: { type: "array", items: runSchema },
          nextCursor: nullableString,
        },
      },
      { items: [runExample], nextCursor: null },
    ),
    ...apiErrors({}),
  },
};

/** GET /v1/runs/:id */
export const getRunsByIdSchema = {
  tags: ["runs"],
  summary: "A run",
  description: "The run's status, input, output or error, and its process.",
  headers: tenantHeaders,
  params: runIdParams,
  response: {
    200: jsonResponse("The run", runSchema, runExample),
    ...apiErrors({}, "NotFound"),
  },
};

/** GET /v1/runs/:id/history */
export const getRunsByIdHistorySchema = {
  tags: ["runs"],
  summary: "A page of a run's history (current generation), in order",
  description:
    "The recorded events of the run's current generation in `seq` order, paged: at " +
    `most \`limit\` (1–${MAX_HISTORY_PAGE}, default ${MAX_HISTORY_PAGE}) and about ` +
    `${HISTORY_PAGE_BYTES / 1024 / 1024} MiB of event data a page (at least one event); ` +
    "`nextCursor` is null on the last page. continueAsNew starts a new generation.",
  headers: tenantHeaders,
  params: runIdParams,
  querystring: {
    type: "object",
    additionalProperties: false,
    properties: {
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_HISTORY_PAGE,
        default: MAX_HISTORY_PAGE,
        description: `Page size (1–${MAX_HISTORY_PAGE}).`,
      },
      cursor: pageQueryProperties.cursor,
    },
  },
  response: {
    200: jsonResponse("The events", historySchema, historyExample),
    ...apiErrors({}, "NotFound"),
  },
};

/** POST /v1/runs/:id/signals/:name */
export const postRunsByIdSignalsByNameSchema = {
  tags: ["runs"],
  summary: "Send a signal; the body (any JSON, or none) is its payload",
  description:
    "Stores the signal for the run; a ctx.waitForSignal(name) consumes it. A finished run " +
    "is 409 Conflict, and so is a run at a cap: WF_RUN_MAX_PENDING_SIGNALS signals it has " +
    "not consumed, or WF_RUN_MAX_HISTORY events in its history counting those. A payload " +
    "over WF_SIGNAL_MAX_BYTES is 413. Names starting with `__` are reserved.",
  headers: actorHeaders,
  params: {
    type: "object",
    required: ["id", "name"],
    properties: { id: idSchema, name: nameSchema },
  },
  body: {
    ...anyJson("The signal's payload (no body: null)"),
    examples: [{ approved: true }],
  },
  response: {
    202: jsonResponse("The signal was stored", accepted, acceptedExample),
    ...apiErrors({ body: true }, "NotFound", "Conflict"),
  },
};

/** POST /v1/runs/:id/cancel */
export const postRunsByIdCancelSchema = {
  tags: ["runs"],
  summary: "Request cancellation: the run's compensations run, then it is cancelled",
  description:
    "Accepted for any run; a final run keeps its status and cancelRequested stays false. " +
    "Calling it again is harmless. No body.",
  headers: actorHeaders,
  params: runIdParams,
  response: {
    202: jsonResponse("Cancellation was requested", accepted, {
      runId: "order-1042",
      status: "running",
    }),
    ...apiErrors({ body: true }, "NotFound"),
  },
};
