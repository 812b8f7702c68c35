/**
 * Versioned definitions (docs/definitions.md): the language's JSON Schema,
 * validation, the draft, publish, retract, versions, diff. Definition bodies
 * are JSON or YAML (Content-Type application/yaml); they are checked by the
 * validator, not by a route schema, so a 400 lists every finding in
 * `errors[]` instead of Ajv's first one.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type * as Wire from "../../client/wire/index.ts";
import { documentError, taskflowError } from "../../domain/errors.ts";
import {
  definitionSchema,
  type DefinitionVersions,
  parseDefinitionText,
  type VersionSelector,
} from "../../engine/index.ts";
import { diffView, versionSummaryView, versionView } from "../views/definition-version-views.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "../hooks/request-context.ts";
import {
  getDefinitionsSchemaSchema,
  postDefinitionsValidateSchema,
  putDefinitionsByKeyDraftSchema,
  postDefinitionsByKeyPublishSchema,
  postDefinitionsByKeyVersionsByVersionRetractSchema,
  getDefinitionsByKeyVersionsSchema,
  getDefinitionsByKeyVersionsByVersionSchema,
  getDefinitionsByKeyDiffSchema,
} from "./definition-version-schemas.ts";

export interface DefinitionVersionRouteOptions {
  definitions: DefinitionVersions;
}

export const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml"];

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
      schema: getDefinitionsSchemaSchema,
    },
    (_req, reply) => reply.send(definitionSchema),
  );

  app.post<{ Headers: TenantHeaders }>(
    "/v1/definitions/validate",
    {
      schema: postDefinitionsValidateSchema,
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
      return reply.send({
        valid: true,
        notChecked: result.notChecked,
      } satisfies Wire.DefinitionValidation);
    },
  );

  app.put<KeyRoute>(
    "/v1/definitions/:key/draft",
    {
      schema: putDefinitionsByKeyDraftSchema,
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
      schema: postDefinitionsByKeyPublishSchema,
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
      schema: postDefinitionsByKeyVersionsByVersionRetractSchema,
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
      schema: getDefinitionsByKeyVersionsSchema,
    },
    async (req) => ({
      items: (await definitions.list(tenantContext(req), req.params.key)).map(versionSummaryView),
    }),
  );

  app.get<{ Params: { key: string; version: string }; Headers: TenantHeaders }>(
    "/v1/definitions/:key/versions/:version",
    {
      schema: getDefinitionsByKeyVersionsByVersionSchema,
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
      schema: getDefinitionsByKeyDiffSchema,
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
