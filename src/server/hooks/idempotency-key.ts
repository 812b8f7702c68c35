/**
 * The Idempotency-Key header's rules and what is derived from it: the cache
 * key that names its record, and the fingerprint of the request it was first
 * used with.
 */
import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotent-replayed";

/** 1–255 visible ASCII characters (! to ~): room for a UUID or a client's own composite key. */
export const IDEMPOTENCY_KEY_PATTERN = "^[!-~]{1,255}$";
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The header's value; undefined when absent; a 400 naming the header when malformed. */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const value = req.headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !KEY.test(value)) {
    throw taskflowError("InvalidIdempotencyKey", {
      detail: "Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)",
    });
  }
  return value;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The record's name inside the tenant: the API key's id and the client's key,
 * hashed so the name stays 69 characters whatever the client sent, and two
 * API keys' equal keys are two records. The API key's value never takes part.
 */
export function recordKey(apiKeyId: string, key: string): string {
  return `idem:${sha256(`${apiKeyId}\u0000${key}`)}`;
}

/**
 * What makes two requests "the same": method, path with query, the acting
 * user (X-Actor-Id changes who acts) and the body as canonical JSON (object
 * keys sorted, so a client that reorders keys on retry still matches).
 */
export function requestHash(req: FastifyRequest): string {
  const actor = req.headers["x-actor-id"];
  const parts = [
    req.method,
    req.url,
    typeof actor === "string" ? actor : "",
    canonicalJson(req.body),
  ];
  return sha256(parts.join("\n"));
}

export function canonicalJson(value: unknown): string {
  if (value === undefined) return "";
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
