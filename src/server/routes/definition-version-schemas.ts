/**
 * The schemas of definition-version-routes.ts's routes (validation and /openapi.json),
 * one per route, kept out of the handlers so a route reads as what it does.
 */
import { definitionSchema } from "../../engine/index.ts";
import {
  definitionDocumentExample,
  diffExample,
  diffSchema,
  versionExample,
  versionSchema,
  versionSummaryExample,
  versionSummarySchema,
} from "../views/definition-version-views.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { actorHeaders, idSchema, tenantHeaders } from "../openapi/schema-primitives.ts";

const TAGS = ["definitions"];
const keyParams = { type: "object", required: ["key"], properties: { key: idSchema } } as const;
const VERSION_PATTERN = "^([0-9]{1,9}|latest|draft)$";
const versionParam = {
  type: "string",
  pattern: VERSION_PATTERN,
  description: "A version number, `latest` (newest published) or `draft`.",
};

/** Documents the body for OpenAPI; checked by the validator (see the header). */
const definitionBody = {
  description: "A definition (GET /v1/definitions/schema), as JSON or YAML.",
  content: {
    "application/json": {
      schema: { type: "object", additionalProperties: true },
      example: definitionDocumentExample,
    },
    "application/yaml": { schema: { type: "string" } },
  },
};

/** GET /v1/definitions/schema */
export const getDefinitionsSchemaSchema = {
  tags: TAGS,
  summary: "The JSON Schema of the definition language",
  description:
    "JSON Schema (draft 2020-12) that every definition document matches; the validator " +
    "checks more (the state graph, expressions, forms, triggers). Same as docs/definition.schema.json.",
  response: {
    200: jsonResponse(
      "The schema",
      { type: "object", additionalProperties: true },
      { $schema: definitionSchema.$schema, title: definitionSchema.title },
    ),
    ...apiErrors({}),
  },
};

/** POST /v1/definitions/validate */
export const postDefinitionsValidateSchema = {
  tags: TAGS,
  summary: "Validate a definition",
  description:
    "Every finding at once, each `{ pointer, reason }` with a JSON pointer into the document. " +
    "Nothing is stored. A `call` step or a sub-process workflow that no worker serves " +
    "(registered on this node, or recorded by a worker within the hour) is a finding " +
    "naming it. Other definitions are checked only by publish: `notChecked` says so.",
  headers: tenantHeaders,
  body: definitionBody.content["application/json"].schema,
  response: {
    200: jsonResponse(
      "The definition is valid",
      {
        type: "object",
        required: ["valid", "notChecked"],
        properties: {
          valid: { const: true },
          notChecked: {
            type: "array",
            items: { type: "string", enum: ["steps", "workflows", "definitions"] },
          },
        },
      },
      { valid: true, notChecked: ["definitions"] },
    ),
    ...apiErrors({ body: true }),
  },
};

/** PUT /v1/definitions/:key/draft */
export const putDefinitionsByKeyDraftSchema = {
  tags: TAGS,
  summary: "Save the draft of a definition",
  description:
    "Creates or overwrites the key's one draft (version 0). It must be valid, except for " +
    "what only publishing checks (other definitions, triggers across definitions). " +
    "`key` in the body must be the key in the path. X-Actor-Id is recorded as its author.",
  headers: actorHeaders,
  params: keyParams,
  body: definitionBody.content["application/json"].schema,
  response: {
    200: jsonResponse("The draft as saved", versionSummarySchema, {
      ...versionSummaryExample,
      version: 0,
      status: "draft",
      publishedAt: null,
    }),
    ...apiErrors({ body: true }),
  },
};

/** POST /v1/definitions/:key/publish */
export const postDefinitionsByKeyPublishSchema = {
  tags: TAGS,
  summary: "Publish a new version",
  description:
    "Publishes the body if one is sent, else the key's draft (which is then consumed). " +
    "The version is the key's highest number + 1, never reused, whatever publishes race. " +
    "Also checked against the tenant's published definitions: sub-processes must name " +
    "one, triggers must not take another definition's route, and every `call` step and " +
    "sub-process workflow must be served by a worker (a 400 naming it), unless " +
    "`allowUnknownSteps=true`: to publish ahead of the deploy that brings the code (its " +
    "runs fail at that state until then). Creates the plain definition (key, name) if " +
    "the key has none. A definition with no difference from the key's published head " +
    "(as the diff tells, `/version` aside) makes no new version: 200 with the head's " +
    "version and `unchanged: true` (a published draft is consumed all the same).",
  headers: actorHeaders,
  params: keyParams,
  querystring: {
    type: "object",
    additionalProperties: false,
    properties: {
      allowUnknownSteps: {
        type: "string",
        enum: ["true", "false"],
        description: "true: publish though a code step or workflow is unknown to workers.",
      },
    },
  },
  body: { type: ["object", "null"], additionalProperties: true },
  response: {
    201: jsonResponse(
      "The new version",
      {
        type: "object",
        required: ["key", "version"],
        properties: { key: { type: "string" }, version: { type: "integer" } },
      },
      { key: "leave", version: 3 },
    ),
    200: jsonResponse(
      "Unchanged: the published head is this definition already; no version was made",
      {
        type: "object",
        required: ["key", "version", "unchanged"],
        properties: {
          key: { type: "string" },
          version: { type: "integer" },
          unchanged: { type: "boolean", const: true },
        },
      },
      { key: "leave", version: 3, unchanged: true },
    ),
    ...apiErrors({ body: true }, "NotFound", "Conflict"),
  },
};

/** POST /v1/definitions/:key/versions/:version/retract */
export const postDefinitionsByKeyVersionsByVersionRetractSchema = {
  tags: TAGS,
  summary: "Retract a published version",
  description:
    "No new run starts on it; runs on it finish. It stays readable and its number is " +
    "never reused. Retracting a retracted version changes nothing.",
  headers: actorHeaders,
  params: {
    type: "object",
    required: ["key", "version"],
    properties: { key: idSchema, version: { type: "string", pattern: "^[0-9]{1,9}$" } },
  },
  response: {
    200: jsonResponse("The version, retracted", versionSummarySchema, {
      ...versionSummaryExample,
      status: "retracted",
    }),
    ...apiErrors({}, "NotFound"),
  },
};

/** GET /v1/definitions/:key/versions */
export const getDefinitionsByKeyVersionsSchema = {
  tags: TAGS,
  summary: "Versions of a definition",
  description: "The draft (version 0) if there is one, then every version in number order.",
  headers: tenantHeaders,
  params: keyParams,
  response: {
    200: jsonResponse(
      "The versions",
      {
        type: "object",
        required: ["items"],
        properties: { items: { type: "array", items: versionSummarySchema } },
      },
      { items: [versionSummaryExample] },
    ),
    ...apiErrors({}, "NotFound"),
  },
};

/** GET /v1/definitions/:key/versions/:version */
export const getDefinitionsByKeyVersionsByVersionSchema = {
  tags: TAGS,
  summary: "One version of a definition",
  description: "By number, `latest` (the newest published, skipping retracted ones) or `draft`.",
  headers: tenantHeaders,
  params: {
    type: "object",
    required: ["key", "version"],
    properties: { key: idSchema, version: versionParam },
  },
  response: {
    200: jsonResponse("The version and its definition", versionSchema, versionExample),
    ...apiErrors({}, "NotFound"),
  },
};

/** GET /v1/definitions/:key/diff */
export const getDefinitionsByKeyDiffSchema = {
  tags: TAGS,
  summary: "What changed between two versions",
  description:
    "A structural diff of the two definitions: `{ pointer, op, from?, to? }` per change, " +
    "objects by key, arrays by index. `from` and `to` take a number, `latest` or `draft`.",
  headers: tenantHeaders,
  params: keyParams,
  querystring: {
    type: "object",
    required: ["from", "to"],
    additionalProperties: false,
    properties: { from: versionParam, to: versionParam },
  },
  response: {
    200: jsonResponse("The changes", diffSchema, diffExample),
    ...apiErrors({}, "NotFound"),
  },
};
