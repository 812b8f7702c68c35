/**
 * Stored API keys over REST (docs/api-keys.md): list, create, revoke, rotate —
 * what `taskflow keys` does, for an admin page that cannot run the CLI.
 *
 * Who may call them: only a key of every tenant (one of WF_API_KEYS, or a
 * stored key created without a tenant). A key scoped to a tenant is refused
 * with 403 on every route, listing included: otherwise a tenant's key could
 * mint an unscoped key (an escalation to every tenant), revoke another
 * tenant's key, or learn which tenants exist.
 *
 * The secret is in the answer of create and rotate only, once. It is never
 * logged (the log lines name the key by id), the answer is `no-store`, and
 * those two routes refuse Idempotency-Key: a replayable answer would be the
 * secret kept for a day in the coordination's cache, in clear.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { TENANT_PATTERN } from "../domain/limits.ts";
import type {
  ApiKeyInfo,
  ApiKeyListing,
  ApiKeys,
  CreatedApiKey,
} from "../engine/coordination/api-keys.ts";
import { IDEMPOTENCY_KEY_HEADER } from "./idempotency-key.ts";
import { apiErrors, jsonResponse } from "./openapi-responses.ts";

export interface KeyRouteOptions {
  keys: ApiKeys;
}

const TAGS = ["admin"];

/** Token ids are UUIDs: a secret (43 characters, or `tfk_` + 43) never matches, so it cannot name a key in a URL. */
const idParams = {
  type: "object",
  required: ["id"],
  properties: {
    id: {
      type: "string",
      pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
      description: "The key's id (from the list), never the key itself.",
    },
  },
} as const;

const infoProperties = {
  id: { type: "string", description: "Stable id; the request log names the key `key:<id>`." },
  name: { type: "string" },
  tenant: {
    type: ["string", "null"],
    description: "The only tenant the key may act for; null: any tenant.",
  },
  createdAt: { type: "string", format: "date-time" },
  expiresAt: { type: ["string", "null"], format: "date-time" },
} as const;

const listingSchema = {
  type: "object",
  required: ["id", "name", "tenant", "createdAt", "expiresAt", "state"],
  properties: {
    ...infoProperties,
    state: { type: "string", enum: ["live", "expired", "retired", "revoked"] },
  },
} as const;

const createdSchema = {
  type: "object",
  required: ["id", "name", "tenant", "createdAt", "expiresAt", "key"],
  properties: {
    ...infoProperties,
    key: {
      type: "string",
      description: "The secret, for X-API-Key: shown this once, only its hash is stored.",
    },
    replaces: { type: "string", description: "Rotate only: the id of the key it revoked." },
  },
} as const;

/**
 * Unknown fields are refused, unlike elsewhere in the API: a misspelt
 * `tenant` would otherwise mint a key of every tenant.
 */
const createBody = {
  type: "object",
  required: ["name"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 128 },
    tenant: {
      type: ["string", "null"],
      pattern: TENANT_PATTERN,
      description: "Scope the key to this tenant; absent or null: any tenant.",
    },
    expiresAt: {
      type: ["string", "null"],
      format: "date-time",
      description: "When the key stops working (in the future); absent or null: never.",
    },
  },
} as const;

const example = {
  id: "5c0d7a9e-3b1f-4c2d-8e6a-2f9b0c1d4e5f",
  name: "backend",
  tenant: null,
  createdAt: "2026-12-01T17:00:00.000Z",
  expiresAt: null,
};
const exampleSecret = "tfk_" + "A".repeat(43);

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

const infoView = (k: ApiKeyInfo) => ({
  id: k.id,
  name: k.name,
  tenant: k.tenant,
  createdAt: k.createdAt.toISOString(),
  expiresAt: iso(k.expiresAt),
});

const listingView = (k: ApiKeyListing) => ({ ...infoView(k), state: k.state });

const createdView = (k: CreatedApiKey) => ({ ...infoView(k), key: k.key });

function requireEveryTenantKey(req: FastifyRequest): void {
  if (req.apiKeyTenant !== null && req.apiKeyTenant !== undefined) {
    throw taskflowError("EveryTenantKeyRequired", {
      tenant: req.apiKeyTenant,
      detail: "managing API keys needs a key of every tenant",
    });
  }
}

/** onRequest of create and rotate: see the header. */
function refuseIdempotencyKey(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (req.headers[IDEMPOTENCY_KEY_HEADER] !== undefined) {
    throw taskflowError("InvalidIdempotencyKey", {
      detail:
        "Idempotency-Key is not accepted here: the answer holds a new secret, which is never stored",
    });
  }
  done();
}

function parseExpiry(value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw taskflowError("InvalidApiKeyRequest", {
      detail: `expiresAt '${value}' is not a date-time`,
    });
  return d;
}

function secretAnswer(reply: FastifyReply): FastifyReply {
  // The answer holds a secret: no cache on the way may keep it.
  return reply.code(201).header("cache-control", "no-store");
}

export function keyRoutes(app: FastifyInstance, { keys }: KeyRouteOptions, done: () => void) {
  app.addHook("onRequest", (req, _reply, next) => {
    requireEveryTenantKey(req);
    next();
  });

  app.get(
    "/v1/keys",
    {
      schema: {
        tags: TAGS,
        summary: "List the stored API keys",
        description:
          "Every stored key still kept, newest first: live, expired, and revoked ones for a " +
          "day. Never a key or its hash. Needs a key of every tenant.",
        response: {
          200: jsonResponse(
            "The keys",
            {
              type: "object",
              required: ["items"],
              properties: { items: { type: "array", items: listingSchema } },
            },
            { items: [{ ...example, state: "live" }] },
          ),
          ...apiErrors({}, "Forbidden"),
        },
      },
    },
    async () => ({ items: (await keys.list()).map(listingView) }),
  );

  app.post<{ Body: { name: string; tenant?: string | null; expiresAt?: string | null } }>(
    "/v1/keys",
    {
      onRequest: refuseIdempotencyKey,
      schema: {
        tags: TAGS,
        summary: "Create a stored API key",
        description:
          "The answer holds the key (`key`), shown this once; only its hash is stored. " +
          "Idempotency-Key is refused here (400), since a replay would need the secret kept.",
        body: createBody,
        response: {
          201: jsonResponse("The new key, with its secret", createdSchema, {
            ...example,
            key: exampleSecret,
          }),
          ...apiErrors({ body: true }, "Forbidden"),
        },
      },
    },
    async (req, reply) => {
      const { name, tenant = null, expiresAt } = req.body;
      const created = await keys.create({ name, tenant, expiresAt: parseExpiry(expiresAt) });
      req.log.info({ createdKeyId: created.id, keyId: req.apiKeyId }, "API key created");
      return secretAnswer(reply).send(createdView(created));
    },
  );

  app.post<{ Params: { id: string } }>(
    "/v1/keys/:id/revoke",
    {
      schema: {
        tags: TAGS,
        summary: "Revoke a stored API key",
        description:
          "The key stops working on every node within the nodes' 5 s cache. Revoking a key " +
          "that is no longer live changes nothing and answers it as it is.",
        params: idParams,
        response: {
          200: jsonResponse("The key, revoked", listingSchema, { ...example, state: "revoked" }),
          ...apiErrors({}, "Forbidden", "NotFound"),
        },
      },
    },
    async (req) => {
      const { id } = req.params;
      const revoked = await keys.revoke(id);
      const found = (await keys.list()).find((k) => k.id === id);
      if (found === undefined)
        throw taskflowError("ApiKeyNotFound", { what: "API key", keyId: id });
      if (revoked) req.log.info({ revokedKeyId: id, keyId: req.apiKeyId }, "API key revoked");
      return listingView(found);
    },
  );

  app.post<{ Params: { id: string } }>(
    "/v1/keys/:id/rotate",
    {
      onRequest: refuseIdempotencyKey,
      schema: {
        tags: TAGS,
        summary: "Rotate a stored API key",
        description:
          "A new key with the old one's name, tenant and lifetime length (from now), shown " +
          "this once; the old key is revoked. 404 when no live key has the id.",
        params: idParams,
        response: {
          201: jsonResponse("The new key, with its secret", createdSchema, {
            ...example,
            key: exampleSecret,
            replaces: "0b6f3f0e-2d5c-4a8e-9f57-6a4c1d2e3f40",
          }),
          ...apiErrors({}, "Forbidden", "NotFound"),
        },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const next = await keys.rotate(id);
      if (next === null) throw taskflowError("ApiKeyNotFound", { what: "live API key", keyId: id });
      req.log.info(
        { rotatedKeyId: id, createdKeyId: next.id, keyId: req.apiKeyId },
        "API key rotated",
      );
      return secretAnswer(reply).send({ ...createdView(next), replaces: id });
    },
  );
  done();
}
