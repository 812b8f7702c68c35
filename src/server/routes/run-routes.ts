/**
 * Durable runs (docs/api.md): start a workflow run, read it and its history,
 * list runs, send a signal, request cancellation.
 */
import type { FastifyInstance } from "fastify";
import type * as Wire from "../../client/wire/index.ts";
import type { Run, RunStatus } from "../../domain/run.ts";
import type { DurableRuns, RunListOrder } from "../../engine/index.ts";
import { eventView, runView } from "../views/run-views.ts";
import { optionalBody } from "../hooks/json-body.ts";
import { createdRange, type CreatedRangeQuery } from "../requests/created-range-params.ts";
import { coerceLimit, decodeCursor, encodeCursor } from "../requests/pagination.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "../hooks/request-context.ts";
import type { PageQuery } from "../openapi/schema-primitives.ts";
import {
  postWorkflowsByNameRunsSchema,
  getRunsSchema,
  getRunsByIdSchema,
  getRunsByIdHistorySchema,
  postRunsByIdSignalsByNameSchema,
  postRunsByIdCancelSchema,
} from "./run-route-schemas.ts";

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
      schema: postWorkflowsByNameRunsSchema,
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
      schema: getRunsSchema,
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
      schema: getRunsByIdSchema,
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
      schema: getRunsByIdHistorySchema,
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
      schema: postRunsByIdSignalsByNameSchema,
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
      schema: postRunsByIdCancelSchema,
    },
    async (req, reply) => {
      const run = await runs.cancel(actorContext(req).tenantId, req.params.id);
      return reply.code(202).send({ runId: run.id, status: run.status } satisfies Wire.RunAccepted);
    },
  );
  done();
}
