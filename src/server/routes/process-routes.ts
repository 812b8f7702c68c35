/** User processes: Start, and the list of root instances a user started. */
import type { FastifyInstance } from "fastify";
import type * as Wire from "../../client/wire/index.ts";
import type { ProcessState } from "../../domain/instance.ts";
import type { Vars } from "../../domain/vars.ts";
import { ProcessStarts } from "../../engine/index.ts";
import { createdRange, type CreatedRangeQuery } from "../requests/created-range-params.ts";
import { coerceLimit, pageRequest } from "../requests/pagination.ts";
import { actorContext, type ActorHeaders } from "../hooks/request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import type { PageQuery } from "../openapi/schema-primitives.ts";
import { instanceView, pageView } from "../views/inbox-views.ts";
import { postProcessesSchema, getProcessesSchema } from "./process-schemas.ts";

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
  { engine, definitionRuns }: RouteOptions,
  done: () => void,
) {
  const processes = new ProcessStarts(engine, definitionRuns);
  app.post<{ Body: StartBody; Headers: ActorHeaders }>(
    "/v1/processes",
    {
      schema: postProcessesSchema,
    },
    async (req, reply) => {
      const { processKey, name, vars, version } = req.body;
      // The use case picks a run of a published version or a plain process.
      const started = await processes.start(actorContext(req), { processKey, name, vars, version });
      return reply.code(201).send(started satisfies Wire.StartedProcess);
    },
  );

  app.get<{ Querystring: ProcessQuery; Headers: ActorHeaders }>(
    "/v1/processes",
    {
      preValidation: coerceLimit,
      schema: getProcessesSchema,
    },
    async (req) => {
      const ctx = actorContext(req);
      const { state, user } = req.query;
      // No user: the actor's own list (the use case checks it as the X-Actor-Id).
      const page = await engine.listProcesses(
        ctx,
        user,
        state,
        pageRequest(req.query),
        createdRange(req.query),
      );
      return pageView(page, instanceView);
    },
  );
  done();
}
