/**
 * The input checks every coordination implementation makes before it talks
 * to its backend, so a bad name or TTL is the same Validation error on every
 * backend (never a driver error, never a 500).
 */
import { taskflowError } from "../../domain/errors.ts";
import { TENANT_PATTERN } from "../../domain/limits.ts";
import {
  MAX_COORDINATION_KEY_LENGTH,
  MAX_COORDINATION_TTL_MS,
} from "../../engine/coordination/limits.ts";

const TENANT = new RegExp(TENANT_PATTERN);

export function checkTenant(tenant: string): void {
  if (typeof tenant !== "string" || !TENANT.test(tenant)) {
    throw taskflowError("InvalidArgument", {
      detail: `tenant '${String(tenant).slice(0, 80)}' is not a valid tenant id`,
    });
  }
}

/** A lock name, counter key or cache key: 1–512 characters. */
export function checkKey(what: string, key: string): void {
  if (typeof key !== "string" || key.length === 0) {
    throw taskflowError("InvalidArgument", { detail: `${what} must be a non-empty string` });
  }
  if (key.length > MAX_COORDINATION_KEY_LENGTH) {
    throw taskflowError("InvalidArgument", {
      detail: `${what} is ${key.length} characters; at most ${MAX_COORDINATION_KEY_LENGTH} are allowed`,
    });
  }
}

/** A lease, TTL, wait or window in ms: a whole number, > 0 (≥ 0 when zeroAllowed), ≤ 30 days. */
export function checkDuration(what: string, ms: number, zeroAllowed = false): void {
  const min = zeroAllowed ? 0 : 1;
  if (!Number.isInteger(ms) || ms < min || ms > MAX_COORDINATION_TTL_MS) {
    throw taskflowError("InvalidArgument", {
      detail: `${what} must be a whole number of milliseconds from ${min} to ${MAX_COORDINATION_TTL_MS}; got ${String(ms)}`,
    });
  }
}

/** Points to consume or a cap: a whole number ≥ 1. */
export function checkPoints(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw taskflowError("InvalidArgument", {
      detail: `${what} must be a whole number ≥ 1; got ${String(n)}`,
    });
  }
}
