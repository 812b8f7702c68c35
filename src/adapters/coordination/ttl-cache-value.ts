/**
 * Cached values as stored text: JSON, at most MAX_CACHE_VALUE_BYTES once
 * serialised. The SQL and Redis caches store and compare this text (a
 * compare-and-set matches the stored text against the expected value's), so
 * both encode the same way here.
 */
import { validation } from "../../domain/errors.ts";
import { MAX_CACHE_VALUE_BYTES } from "../../engine/coordination/limits.ts";
import type { JsonValue } from "../../engine/coordination/ttl-cache.ts";

/** The value's JSON text; Validation when it is not JSON or is too large. */
export function encodeCacheValue(what: string, value: JsonValue): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    // A BigInt or a cycle: not JSON.
    throw validation(`${what} is not a JSON value: ${(e as Error).message}`);
  }
  if (typeof text !== "string") throw validation(`${what} is not a JSON value`);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_CACHE_VALUE_BYTES) {
    throw validation(
      `${what} is ${bytes} bytes as JSON; at most ${MAX_CACHE_VALUE_BYTES} are allowed`,
    );
  }
  return text;
}

export function decodeCacheValue(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}
