/**
 * Versioned definitions (docs/definitions.md): the language's JSON Schema,
 * validation, the draft, publish, retract, versions, diff. Definition bodies
 * are JSON or YAML (Content-Type application/yaml); they are checked by the
 * validator, not by a route schema, so a 400 lists every finding in
 * `errors[]` instead of Ajv's first one.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { documentError, taskflowError } from "../domain/errors.ts";
import { definitionSchema } from "../engine/definitions/definition-schema.ts";
import { parseDefinitionText } from "../engine/definitions/definition-text.ts";
import type {
  DefinitionVersions,
  VersionSelector,
} from "../engine/definitions/definition-versions.ts";
import {
  definitionDocumentExample,
  diffExample,
  diffSchema,
  diffView,
  versionExample,
  versionSchema,
  versionSummaryExample,
  versionSummarySchema,
  versionSummaryView,
  versionView,
} from "./definition-version-views.ts";
import { apiErrors, jsonResponse } from "./openapi-responses.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "./request-context.ts";
import { actorHeaders, idSchema, tenantHeaders } from "./schema-primitives.ts";

export interface DefinitionVersionRouteOptions {
  definitions: DefinitionVersions;
}

export const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml"];

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

function selector(v: string): VersionSelector {
  if (v === "latest" || v === "draft") return v;
  return Number(v);
}

/** The body as parsed by the JSON parser or the YAML one below; a body that is no object is refused. */
function documentOf(req: FastifyRequest): unknown {
  if (req.body === undefined) throw taskflowError("BodyRequired");
  return req.body;
}

function noBodyAsNull(req: FastifyRequest, _reply: unknown, done: () => void): void {
  if (req.body === undefined) req.body = null;
  done();
}

type KeyRoute = { Params: { key: string }; Headers: ActorHeaders };

export function definitionVersionRoutes(
  app: FastifyInstance,
  { definitions }: DefinitionVersionRouteOptions,
  done: () => void,
) {
  // Scoped to this plugin: the other routes keep answering 415 to YAML.
  app.addContentTypeParser(YAML_TYPES, { parseAs: "string" }, (_req, body, next) => {
    const text = body as string;
    if (text.length === 0) return next(null, undefined);
    try {
      next(null, parseDefinitionText(text, "yaml"));
    } catch (e) {
      next(e as Error, undefined);
    }
  });

  app.get(
    "/v1/definitions/schema",
    {
      schema: {
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
      },
    },
    (_req, reply) => reply.send(definitionSchema),
  );

  app.post<{ Headers: TenantHeaders }>(
    "/v1/definitions/validate",
    {
      schema: {
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
      },
    },
    async (req, reply) => {
      const result = await definitions.validate(documentOf(req));
      if (!result.valid) {
        throw documentError(
          "InvalidDefinition",
          { detail: `the definition has ${result.errors.length} error(s)` },
          result.errors,
        );
      }
      return reply.send({ valid: true, notChecked: result.notChecked });
    },
  );

  app.put<KeyRoute>(
    "/v1/definitions/:key/draft",
    {
      schema: {
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
      },
    },
    async (req) => {
      const ctx = actorContext(req);
      await definitions.saveDraft(ctx, req.params.key, documentOf(req));
      return versionSummaryView(await definitions.get(ctx, req.params.key, "draft"));
    },
  );

  app.post<KeyRoute>(
    "/v1/definitions/:key/publish",
    {
      // No body: publish the draft. Fastify would check an absent body against the schema.
      preValidation: noBodyAsNull,
      schema: {
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
      },
    },
    async (req, reply) => {
      const body = req.body === null ? undefined : req.body;
      const { allowUnknownSteps } = req.query as { allowUnknownSteps?: "true" | "false" };
      const published = await definitions.publish(actorContext(req), req.params.key, body, {
        allowUnknownSteps: allowUnknownSteps === "true",
      });
      return reply.code(published.unchanged === true ? 200 : 201).send(published);
    },
  );

  app.post<{ Params: { key: string; version: string }; Headers: ActorHeaders }>(
    "/v1/definitions/:key/versions/:version/retract",
    {
      schema: {
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
      },
    },
    async (req) => {
      const v = await definitions.retract(
        actorContext(req),
        req.params.key,
        Number(req.params.version),
      );
      return versionSummaryView(v);
    },
  );

  app.get<{ Params: { key: string }; Headers: TenantHeaders }>(
    "/v1/definitions/:key/versions",
    {
      schema: {
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
      },
    },
    async (req) => ({
      items: (await definitions.list(tenantContext(req), req.params.key)).map(versionSummaryView),
    }),
  );

  app.get<{ Params: { key: string; version: string }; Headers: TenantHeaders }>(
    "/v1/definitions/:key/versions/:version",
    {
      schema: {
        tags: TAGS,
        summary: "One version of a definition",
        description:
          "By number, `latest` (the newest published, skipping retracted ones) or `draft`.",
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
      },
    },
    async (req) =>
      versionView(
        await definitions.get(tenantContext(req), req.params.key, selector(req.params.version)),
      ),
  );

  app.get<{
    Params: { key: string };
    Querystring: { from: string; to: string };
    Headers: TenantHeaders;
  }>(
    "/v1/definitions/:key/diff",
    {
      schema: {
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
      },
    },
    async (req) =>
      diffView(
        await definitions.diff(
          tenantContext(req),
          req.params.key,
          selector(req.query.from),
          selector(req.query.to),
        ),
      ),
  );
  done();
}
