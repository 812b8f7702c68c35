/**
 * How long an entry lives, resolved the same way by every provider: each
 * bound falls back to the provider's default when the caller leaves it out,
 * 0 turns that bound off, and an entry with neither would never end, which
 * is refused (a shared cache would grow without bound).
 */
import type { CacheEntryOptions } from "./cache-provider-port.ts";

export interface CacheExpiry {
  /** 0: no sliding expiry. */
  readonly slidingMs: number;
  /** 0: no deadline. */
  readonly absoluteMs: number;
}

export function resolveExpiry(
  options: CacheEntryOptions | undefined,
  defaults: CacheExpiry,
): CacheExpiry {
  const slidingMs = checkMs("slidingMs", options?.slidingMs ?? defaults.slidingMs);
  const absoluteMs = checkMs("absoluteMs", options?.absoluteMs ?? defaults.absoluteMs);
  if (slidingMs === 0 && absoluteMs === 0) {
    throw new RangeError("a cache entry needs slidingMs or absoluteMs (both are 0)");
  }
  return { slidingMs, absoluteMs };
}

function checkMs(name: string, ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new RangeError(`${name} must be a whole number of milliseconds ≥ 0, got ${ms}`);
  }
  return ms;
}

/** The entry's text; a value JSON cannot carry is the caller's bug, not a cache failure. */
export function payloadText(value: unknown): string {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) throw new TypeError(`a cache value must be JSON, got ${typeof value}`);
  return text;
}

/** JSON.parse that answers `undefined` instead of throwing on a corrupt payload. */
export function parsePayload(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
