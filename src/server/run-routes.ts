/**
 * Durable runs (docs/api.md): start a workflow run, read it and its history,
 * list runs, send a signal, request cancellation.
 */
import type { FastifyInstance } from "fastify";
import { RunStatuses, type Run, type RunEvent, type RunStatus } from "../domain/run.ts";
import type { RunEventJson } from "../domain/run-event.ts";
import type { DurableRuns } from "../engine/durable/runs-api.ts";
import type { Directory } from "../engine/ports.ts";
import { hideStack, withoutStack } from "./failure-stacks.ts";
import { problemResponses } from "./component-schemas.ts";
import { optionalBody } from "./json-body.ts";
import { assertKnownUser } from "./known-ids.ts";
import { coerceLimit, decodeCursor, encodeCursor } from "./pagination.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "./request-context.ts";
import {
  actorHeaders,
  idSchema,
  nameSchema,
  pageQueryProperties,
  tenantHeaders,
  type PageQuery,
} from "./schema-primitives.ts";

export interface RunRouteOptions {
  runs: DurableRuns;
  /** Who exists: a run's starter (X-Actor-Id) must be a known user, checked at the start. */
  directory: Directory;
  /** config.exposeErrorStacks: off, a run's failures are returned with `stack: null`. */
  exposeErrorStacks?: boolean | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();
const any = {} as const;
const nullableString = { type: ["string", "null"] } as const;

export function runView(r: Run, exposeStacks = false) {
  return {
    runId: r.id,
    workflow: r.workflow,
    status: r.status,
    input: r.input ?? null,
    output: r.output ?? null,
    error: exposeStacks ? (r.error ?? null) : hideStack(r.error ?? null),
    rootInstanceId: r.rootInstanceId,
    parentRunId: r.parentRunId,
    cancelRequested: r.cancelRequested,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}

export function eventView(e: RunEvent, exposeStacks = false): RunEventJson {
  const shown = exposeStacks ? e : withoutStack(e);
  return { ...shown, at: iso(shown.at) };
}

const runSchema = {
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
    "cancelRequested",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    runId: { type: "string" },
    workflow: { type: "string" },
    status: { type: "string", enum: RunStatuses },
    input: any,
    output: any,
    error: any,
    rootInstanceId: nullableString,
    parentRunId: nullableString,
    cancelRequested: { type: "boolean" },
    createdAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
  },
} as const;

const historySchema = {
  type: "object",
  required: ["items"],
  properties: {
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
          data: any,
        },
      },
    },
  },
} as const;

const runIdParams = {
  type: "object",
  required: ["id"],
  properties: { id: idSchema },
} as const;

const accepted = {
  type: "object",
  required: ["runId", "status"],
  properties: { runId: { type: "string" }, status: { type: "string" } },
} as const;

interface StartBody {
  input?: unknown;
  id?: string;
}

interface RunListQuery extends PageQuery {
  status?: RunStatus;
  workflow?: string;
}

export function runRoutes(
  app: FastifyInstance,
  { runs, directory, exposeErrorStacks = false }: RunRouteOptions,
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
        headers: actorHeaders,
        params: { type: "object", required: ["name"], properties: { name: idSchema } },
        body: { type: "object", properties: { input: any, id: idSchema } },
        response: { 200: accepted, 201: accepted, ...problemResponses },
      },
    },
    async (req, reply) => {
      const ctx = actorContext(req);
      // The run owns a root instance as this user; an unknown one would only fail later, in the run.
      assertKnownUser(directory, "X-Actor-Id", ctx.actorId);
      const { run, created } = await runs.start(ctx.tenantId, req.params.name, {
        input: req.body.input,
        id: req.body.id,
        startedBy: ctx.actorId,
      });
      return reply.code(created ? 201 : 200).send({ runId: run.id, status: run.status });
    },
  );

  app.get<{ Querystring: RunListQuery; Headers: TenantHeaders }>(
    "/v1/runs",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["runs"],
        summary: "A page of runs, filtered by status and workflow",
        headers: tenantHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            status: { type: "string", enum: RunStatuses },
            workflow: idSchema,
            ...pageQueryProperties,
          },
        },
        response: {
          200: {
            type: "object",
            required: ["items", "nextCursor"],
            properties: { items: { type: "array", items: runSchema }, nextCursor: nullableString },
          },
          ...problemResponses,
        },
      },
    },
    async (req) => {
      const { tenantId } = tenantContext(req);
      const { status, workflow, limit, cursor } = req.query;
      const page = await runs.list(tenantId, {
        status,
        workflow,
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
        headers: tenantHeaders,
        params: runIdParams,
        response: { 200: runSchema, ...problemResponses },
      },
    },
    async (req) => view(await runs.get(tenantContext(req).tenantId, req.params.id)),
  );

  app.get<{ Params: { id: string }; Headers: TenantHeaders }>(
    "/v1/runs/:id/history",
    {
      schema: {
        tags: ["runs"],
        summary: "A run's history (current generation), in order",
        headers: tenantHeaders,
        params: runIdParams,
        response: { 200: historySchema, ...problemResponses },
      },
    },
    async (req) => {
      const items = await runs.history(tenantContext(req).tenantId, req.params.id);
      return { items: items.map((e) => eventView(e, exposeErrorStacks)) };
    },
  );

  app.post<{ Params: { id: string; name: string }; Body: unknown; Headers: ActorHeaders }>(
    "/v1/runs/:id/signals/:name",
    {
      schema: {
        tags: ["runs"],
        summary: "Send a signal; the body (any JSON, or none) is its payload",
        headers: actorHeaders,
        params: {
          type: "object",
          required: ["id", "name"],
          properties: { id: idSchema, name: nameSchema },
        },
        response: { 202: accepted, ...problemResponses },
      },
    },
    async (req, reply) => {
      const ctx = actorContext(req);
      await runs.signal(ctx.tenantId, req.params.id, req.params.name, req.body ?? null);
      const run = await runs.get(ctx.tenantId, req.params.id);
      return reply.code(202).send({ runId: run.id, status: run.status });
    },
  );

  app.post<{ Params: { id: string }; Headers: ActorHeaders }>(
    "/v1/runs/:id/cancel",
    {
      schema: {
        tags: ["runs"],
        summary: "Request cancellation: the run's compensations run, then it is cancelled",
        headers: actorHeaders,
        params: runIdParams,
        response: { 202: accepted, ...problemResponses },
      },
    },
    async (req, reply) => {
      const run = await runs.cancel(actorContext(req).tenantId, req.params.id);
      return reply.code(202).send({ runId: run.id, status: run.status });
    },
  );
  done();
}
