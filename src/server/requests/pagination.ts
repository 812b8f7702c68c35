/**
 * Opaque cursors and page sizes. A cursor is the base64url of the last id of
 * the previous page: opaque to callers (they must not build one), cheap to
 * check here. `limit` arrives as a query string; it is turned into a number
 * before validation so the schema can state it as an integer with bounds,
 * while bodies keep strict (non-coercing) types.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import type { PageRequest } from "../../engine/index.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../../domain/limits.ts";
import type { PageQuery } from "../openapi/schema-primitives.ts";

const ID = new RegExp(ID_PATTERN);

export const encodeCursor = (lastId: string) => Buffer.from(lastId, "utf8").toString("base64url");

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  // Re-encoding must give the same text: rejects junk that base64url decoding would tolerate.
  if (encodeCursor(id) !== cursor || id.length > MAX_ID_LENGTH || !ID.test(id)) {
    throw taskflowError("MalformedCursor", { detail: "malformed cursor" });
  }
  return id;
}

export function pageRequest(q: PageQuery): PageRequest {
  return { limit: q.limit, after: q.cursor === undefined ? undefined : decodeCursor(q.cursor) };
}

/** preValidation hook for list routes: "25" → 25; anything else is left for the schema to refuse. */
export function coerceLimit(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const q = req.query as Record<string, unknown> | undefined;
  if (q && typeof q.limit === "string" && /^[0-9]{1,9}$/.test(q.limit)) q.limit = Number(q.limit);
  done();
}
