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
import type * as Wire from "../../client/wire/index.ts";
import { taskflowError } from "../../domain/errors.ts";
import type { ApiKeyInfo, ApiKeyListing, ApiKeys, CreatedApiKey } from "../../engine/index.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../hooks/idempotency-key.ts";
import {
  getKeysSchema,
  postKeysSchema,
  postKeysByIdRevokeSchema,
  postKeysByIdRotateSchema,
} from "./key-schemas.ts";

export interface KeyRouteOptions {
  keys: ApiKeys;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

const infoView = (k: ApiKeyInfo): Wire.ApiKeyInfo => ({
  id: k.id,
  name: k.name,
  tenant: k.tenant,
  createdAt: k.createdAt.toISOString(),
  expiresAt: iso(k.expiresAt),
});

const listingView = (k: ApiKeyListing): Wire.ApiKeyListing => ({ ...infoView(k), state: k.state });

const createdView = (k: CreatedApiKey): Wire.CreatedApiKey => ({ ...infoView(k), key: k.key });

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
      schema: getKeysSchema,
    },
    async () => ({ items: (await keys.list()).map(listingView) }),
  );

  app.post<{ Body: { name: string; tenant?: string | null; expiresAt?: string | null } }>(
    "/v1/keys",
    {
      onRequest: refuseIdempotencyKey,
      schema: postKeysSchema,
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
      schema: postKeysByIdRevokeSchema,
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
      schema: postKeysByIdRotateSchema,
    },
    async (req, reply) => {
      const { id } = req.params;
      const next = await keys.rotate(id);
      if (next === null) throw taskflowError("ApiKeyNotFound", { what: "live API key", keyId: id });
      req.log.info(
        { rotatedKeyId: id, createdKeyId: next.id, keyId: req.apiKeyId },
        "API key rotated",
      );
      return secretAnswer(reply).send({
        ...createdView(next),
        replaces: id,
      } satisfies Wire.CreatedApiKey);
    },
  );
  done();
}
