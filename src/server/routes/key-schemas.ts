/**
 * The schemas of key-routes.ts's routes (validation and /openapi.json),
 * one per route, kept out of the handlers so a route reads as what it does.
 */
import { TENANT_PATTERN } from "../../domain/limits.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";

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

/** GET /v1/keys */
export const getKeysSchema = {
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
};

/** POST /v1/keys */
export const postKeysSchema = {
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
};

/** POST /v1/keys/:id/revoke */
export const postKeysByIdRevokeSchema = {
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
};

/** POST /v1/keys/:id/rotate */
export const postKeysByIdRotateSchema = {
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
};
