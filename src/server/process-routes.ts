/** User processes: Start, and the list of root instances a user started. */
import type { FastifyInstance } from "fastify";
import { ProcessStates, type ProcessState } from "../domain/instance.ts";
import type { Vars } from "../domain/vars.ts";
import { ref } from "./openapi/component-schemas.ts";
import { assertKnownUser } from "../engine/human-tasks/checks.ts";
import { instanceExample, pageExample } from "./openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "./openapi/openapi-responses.ts";
import {
  createdRange,
  createdRangeQueryProperties,
  type CreatedRangeQuery,
} from "./requests/created-range-params.ts";
import { coerceLimit, pageRequest } from "./requests/pagination.ts";
import { actorContext, type ActorHeaders } from "./hooks/request-context.ts";
import type { RouteOptions } from "./routes/route-options.ts";
import {
  actorHeaders,
  idSchema,
  nameSchema,
  pageQueryProperties,
  varsSchema,
  type PageQuery,
} from "./openapi/schema-primitives.ts";
import type * as Wire from "../client/wire/index.ts";
import { instanceView, pageView } from "./views/inbox-views.ts";

interface StartBody {
  processKey: string;
  name?: string;
  vars?: Vars;
  version?: number;
}

interface ProcessQuery extends PageQuery, CreatedRangeQuery {
  state?: ProcessState;
  user?: string;
}

export function processRoutes(
  app: FastifyInstance,
  { engine, directory, definitionRuns }: RouteOptions,
  done: () => void,
) {
  app.post<{ Body: StartBody; Headers: ActorHeaders }>(
    "/v1/processes",
    {
      schema: {
        tags: ["processes"],
        summary: "Start a process (creates its definition when missing)",
        description:
          "Starts a root instance of the definition `processKey` (created with `name` when the " +
          "tenant has none yet), started by the X-Actor-Id. Work is then assigned under it " +
          "with POST /v1/assignments. When the key has a published version (or `version` is " +
          "given), the process is a run of that version on the interpreter, pinned to it: the " +
          "latest published one unless `version` names another; `vars` must match its schema.",
        headers: actorHeaders,
        body: {
          type: "object",
          required: ["processKey"],
          properties: {
            processKey: idSchema,
            name: nameSchema,
            vars: varsSchema,
            version: {
              type: "integer",
              minimum: 1,
              description: "A published version of the definition to run (default: the latest).",
            },
          },
          examples: [{ processKey: "leave", name: "Leave request", vars: { employee: "bob" } }],
        },
        response: {
          201: jsonResponse(
            "The process was started",
            {
              type: "object",
              required: ["definitionKey", "instanceId"],
              properties: {
                definitionKey: { type: "string" },
                instanceId: { type: "string" },
                runId: {
                  type: "string",
                  description: "The interpreter's run (published definitions)",
                },
                version: { type: "integer", description: "The version the run is pinned to" },
              },
            },
            { definitionKey: "leave", instanceId: instanceExample.id },
          ),
          ...apiErrors({ body: true }),
        },
      },
    },
    async (req, reply) => {
      const { processKey, name, vars, version } = req.body;
      const ctx = actorContext(req);
      if (
        definitionRuns &&
        (version !== undefined || (await definitionRuns.hasPublished(ctx.tenantId, processKey)))
      ) {
        // The use case checks the version, then the actor, then the vars.
        const run = await definitionRuns.start(ctx, {
          key: processKey,
          version,
          vars: vars ?? {},
          name,
        });
        const { instanceId, runId } = run;
        return reply.code(201).send({
          definitionKey: processKey,
          instanceId,
          runId,
          version: run.version,
        } satisfies Wire.StartedProcess);
      }
      const started = await engine.start(ctx, { processKey, name, vars });
      return reply.code(201).send(started satisfies Wire.StartedProcess);
    },
  );

  app.get<{ Querystring: ProcessQuery; Headers: ActorHeaders }>(
    "/v1/processes",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["processes"],
        summary: "Root instances started by a user (default: the actor)",
        description:
          "Paged, optionally filtered by `state`: notStarted (running, no referral yet), open " +
          "(running, at least one referral) or closed (completed), and by creation time " +
          "(`createdAfter` inclusive, `createdBefore` exclusive; after later than before is a " +
          "400). Items are instances without tasks and children.",
        headers: actorHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            state: {
              type: "string",
              enum: ProcessStates,
              description: "Only processes in this state.",
              examples: ["open"],
            },
            user: {
              ...idSchema,
              description: "Whose processes (default: the actor).",
              examples: ["alice"],
            },
            ...createdRangeQueryProperties,
            ...pageQueryProperties,
          },
        },
        response: {
          200: jsonResponse(
            "A page of root instances",
            ref("InstancePage"),
            pageExample(instanceExample),
          ),
          ...apiErrors({}),
        },
      },
    },
    async (req) => {
      const ctx = actorContext(req);
      const { state, user } = req.query;
      // The use case checks whose list it is; named here when it is the actor's by default.
      if (user === undefined) assertKnownUser(directory, "X-Actor-Id", ctx.actorId);
      const page = await engine.listProcesses(
        ctx,
        user ?? ctx.actorId,
        state,
        pageRequest(req.query),
        createdRange(req.query),
      );
      return pageView(page, instanceView);
    },
  );
  done();
}
