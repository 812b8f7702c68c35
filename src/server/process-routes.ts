/** User processes: Start, and the list of root instances a user started. */
import type { FastifyInstance } from "fastify";
import { ProcessStates, type ProcessState } from "../domain/instance.ts";
import type { Vars } from "../domain/vars.ts";
import { problemResponses, ref } from "./component-schemas.ts";
import { assertKnownUser } from "./known-ids.ts";
import { coerceLimit, pageRequest } from "./pagination.ts";
import { actorContext, type ActorHeaders } from "./request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  actorHeaders,
  idSchema,
  nameSchema,
  pageQueryProperties,
  varsSchema,
  type PageQuery,
} from "./schema-primitives.ts";
import { instanceView, pageView } from "./views.ts";

interface StartBody {
  processKey: string;
  name?: string;
  vars?: Vars;
}

interface ProcessQuery extends PageQuery {
  state?: ProcessState;
  user?: string;
}

export function processRoutes(
  app: FastifyInstance,
  { engine, directory }: RouteOptions,
  done: () => void,
) {
  app.post<{ Body: StartBody; Headers: ActorHeaders }>(
    "/v1/processes",
    {
      schema: {
        tags: ["processes"],
        summary: "Start a process (creates its definition when missing)",
        headers: actorHeaders,
        body: {
          type: "object",
          required: ["processKey"],
          properties: { processKey: idSchema, name: nameSchema, vars: varsSchema },
        },
        response: {
          201: {
            type: "object",
            required: ["definitionKey", "instanceId"],
            properties: { definitionKey: { type: "string" }, instanceId: { type: "string" } },
          },
          ...problemResponses,
        },
      },
    },
    async (req, reply) => {
      const { processKey, name, vars } = req.body;
      const started = await engine.start(actorContext(req), { processKey, name, vars });
      return reply.code(201).send(started);
    },
  );

  app.get<{ Querystring: ProcessQuery; Headers: ActorHeaders }>(
    "/v1/processes",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["processes"],
        summary: "Root instances started by a user (default: the actor)",
        headers: actorHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            state: { type: "string", enum: ProcessStates },
            user: idSchema,
            ...pageQueryProperties,
          },
        },
        response: { 200: ref("InstancePage"), ...problemResponses },
      },
    },
    async (req) => {
      const ctx = actorContext(req);
      const { state, user } = req.query;
      if (user !== undefined) assertKnownUser(directory, "user", user);
      else assertKnownUser(directory, "X-Actor-Id", ctx.actorId);
      const page = await engine.listProcesses(
        ctx,
        user ?? ctx.actorId,
        state,
        pageRequest(req.query),
      );
      return pageView(page, instanceView);
    },
  );
  done();
}
