/**
 * Durable runs (docs/api.md): start a workflow run, read it and its history,
 * list runs, send a signal, request cancellation.
 */
import type { FastifyInstance } from "fastify";
import { RunStatuses, type Run, type RunStatus } from "../domain/run.ts";
import { HISTORY_PAGE_BYTES, MAX_HISTORY_PAGE } from "../engine/durable/run-limits.ts";
import type { DurableRuns } from "../engine/durable/runs-api.ts";
import { historyExample, runExample } from "./openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "./openapi/openapi-responses.ts";
import {
  accepted,
  acceptedExample,
  anyJson,
  historySchema,
  nullableString,
  runIdParams,
  runSchema,
} from "./routes/run-schemas.ts";
import type * as Wire from "../client/wire/index.ts";
import { eventView, runView } from "./views/run-views.ts";
import { optionalBody } from "./hooks/json-body.ts";
import {
  createdRange,
  createdRangeQueryProperties,
  type CreatedRangeQuery,
} from "./requests/created-range-params.ts";
import { coerceLimit, decodeCursor, encodeCursor } from "./requests/pagination.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "./hooks/request-context.ts";
import {
  actorHeaders,
  idSchema,
  nameSchema,
  pageQueryProperties,
  tenantHeaders,
  type PageQuery,
} from "./openapi/schema-primitives.ts";
import { RUN_LIST_ORDERS, type RunListOrder } from "../engine/durable/run-list-order.ts";

export interface RunRouteOptions {
  /** The use cases: they check the starter (X-Actor-Id) against the directory themselves. */
  runs: DurableRuns;
  /** config.exposeErrorStacks: off, a run's failures are returned with `stack: null`. */
  exposeErrorStacks?: boolean | undefined;
}

interface StartBody {
  input?: unknown;
  id?: string;
}

interface RunListQuery extends PageQuery, CreatedRangeQuery {
  status?: RunStatus;
  workflow?: string;
  startedBy?: string;
  order?: RunListOrder;
}

export function runRoutes(
  app: FastifyInstance,
  { runs, exposeErrorStacks = false }: RunRouteOptions,
  done: () => void,
) {
  const view = (r: Run) => runView(r, exposeErrorStacks);
  app.post<{ Params: { name: string }; Body: StartBody; Headers: ActorHeaders }>(
    "/v1/workflows/:name/runs",
    {
      preValidation: optionalBody,
      schema: {
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
      },
    },
    async (req, reply) => {
      const ctx = actorContext(req);
      const { run, created } = await runs.start(ctx.tenantId, req.params.name, {
        input: req.body.input,
        id: req.body.id,
        startedBy: ctx.actorId,
      });
      return reply
        .code(created ? 201 : 200)
        .send({ runId: run.id, status: run.status } satisfies Wire.RunAccepted);
    },
  );

  app.get<{ Querystring: RunListQuery; Headers: TenantHeaders }>(
    "/v1/runs",
    {
      preValidation: coerceLimit,
      schema: {
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
      },
    },
    async (req) => {
      const { tenantId } = tenantContext(req);
      const { status, workflow, startedBy, limit, cursor, order } = req.query;
      const page = await runs.list(tenantId, {
        status,
        workflow,
        startedBy,
        order,
        created: createdRange(req.query),
        limit,
        cursor: cursor === undefined ? undefined : decodeCursor(cursor),
      });
      return {
        items: page.items.map(view),
        nextCursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor),
      };
    },
  );

  app.get<{ Params: { id: string }; Headers: TenantHeaders }>(
    "/v1/runs/:id",
    {
      schema: {
        tags: ["runs"],
        summary: "A run",
        description: "The run's status, input, output or error, and its process.",
        headers: tenantHeaders,
        params: runIdParams,
        response: {
          200: jsonResponse("The run", runSchema, runExample),
          ...apiErrors({}, "NotFound"),
        },
      },
    },
    async (req) => view(await runs.get(tenantContext(req).tenantId, req.params.id)),
  );

  app.get<{
    Params: { id: string };
    Querystring: { limit?: number; cursor?: string };
    Headers: TenantHeaders;
  }>(
    "/v1/runs/:id/history",
    {
      preValidation: coerceLimit,
      schema: {
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
      },
    },
    async (req) => {
      const { limit, cursor } = req.query;
      const page = await runs.historyPage(tenantContext(req).tenantId, req.params.id, {
        limit,
        cursor: cursor === undefined ? undefined : decodeCursor(cursor),
      });
      return {
        items: page.items.map((e) => eventView(e, exposeErrorStacks)),
        nextCursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor),
      };
    },
  );

  app.post<{ Params: { id: string; name: string }; Body: unknown; Headers: ActorHeaders }>(
    "/v1/runs/:id/signals/:name",
    {
      schema: {
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
      },
    },
    async (req, reply) => {
      const ctx = actorContext(req);
      await runs.signal(ctx.tenantId, req.params.id, req.params.name, req.body ?? null);
      const run = await runs.get(ctx.tenantId, req.params.id);
      return reply.code(202).send({ runId: run.id, status: run.status } satisfies Wire.RunAccepted);
    },
  );

  app.post<{ Params: { id: string }; Headers: ActorHeaders }>(
    "/v1/runs/:id/cancel",
    {
      schema: {
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
      },
    },
    async (req, reply) => {
      const run = await runs.cancel(actorContext(req).tenantId, req.params.id);
      return reply.code(202).send({ runId: run.id, status: run.status } satisfies Wire.RunAccepted);
    },
  );
  done();
}
