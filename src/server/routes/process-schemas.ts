/**
 * The schemas of process-routes.ts's routes (validation and /openapi.json),
 * one per route, kept out of the handlers so a route reads as what it does.
 */
import { ProcessStates } from "../../domain/instance.ts";
import { ref } from "../openapi/component-schemas.ts";
import { instanceExample, pageExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { createdRangeQueryProperties } from "../requests/created-range-params.ts";
import {
  actorHeaders,
  idSchema,
  nameSchema,
  pageQueryProperties,
  varsSchema,
} from "../openapi/schema-primitives.ts";

/** POST /v1/processes */
export const postProcessesSchema = {
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
};

/** GET /v1/processes */
export const getProcessesSchema = {
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
};
