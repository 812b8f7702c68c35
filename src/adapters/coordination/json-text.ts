/**
 * The stored form of a cached value on every backend: its JSON text. Storing
 * text means compare-and-set compares the same bytes everywhere, and a caller
 * that mutates an object after storing it never changes the cached copy.
 */
import { taskflowError } from "../../domain/errors.ts";
import { MAX_CACHE_VALUE_BYTES } from "../../engine/coordination/limits.ts";
import type { JsonValue } from "../../engine/coordination/ttl-cache-port.ts";

/** The stored form of a value; refuses what JSON cannot carry and what is too big. */
export function jsonText(value: JsonValue): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw taskflowError("InvalidArgument", {
      detail: `cache value is not JSON: ${(e as Error).message}`,
    });
  }
  if (text === undefined)
    throw taskflowError("InvalidArgument", {
      detail: "cache value is not JSON (undefined or a function)",
    });
  if (Buffer.byteLength(text, "utf8") > MAX_CACHE_VALUE_BYTES) {
    throw taskflowError("InvalidArgument", {
      detail: `cache value is larger than ${MAX_CACHE_VALUE_BYTES} bytes as JSON`,
    });
  }
  return text;
}
