/**
 * What the rate limiter and TTL cache suites share: a fresh coordination per
 * test, a second one on the same backend under another key prefix, the
 * Validation check, and waiting for a point in a fixed window.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import { TaskflowError } from "../../../src/domain/errors.ts";
import type { Coordination } from "../../../src/engine/coordination/coordination-port.ts";
import {
  openTestCoordination,
  REDIS_TEST_URL,
  type CoordinationBackendName,
  type TestCoordination,
} from "./coordination-backends.ts";

/**
 * Runs `fn` on a fresh coordination of `backend` (a fresh key prefix; its own
 * database too with `ownDatabase`), closing it afterwards.
 */
export async function withCoordination(
  backend: CoordinationBackendName,
  fn: (c: Coordination, t: TestCoordination) => Promise<void>,
  options: { ownDatabase?: boolean } = {},
): Promise<void> {
  const t = await openTestCoordination(backend, options);
  try {
    await fn(t.coordination, t);
  } finally {
    await t.close();
  }
}

/**
 * Another coordination on the same backend (same database or Redis) under a
 * different key prefix; on memory simply another one (memory shares nothing).
 */
export async function withOtherPrefix(
  backend: CoordinationBackendName,
  t: TestCoordination,
  fn: (c: Coordination) => Promise<void>,
): Promise<void> {
  const keyPrefix = `${t.keyPrefix}other:`;
  let close: () => Promise<void>;
  let c: Coordination;
  if (backend === "memory") {
    c = openCoordination({ kind: "memory", keyPrefix });
    close = () => c.close();
  } else if (backend === "redis") {
    c = openCoordination({ kind: "redis", keyPrefix, redisUrl: REDIS_TEST_URL });
    close = () => c.close();
  } else {
    const db = openDatabase(t.databaseUrl!);
    c = openCoordination({ kind: "sql", keyPrefix, sql: db.coordinationContext });
    close = async () => {
      await c.close();
      await db.close();
    };
  }
  try {
    await fn(c);
  } finally {
    await close();
  }
}

/** `fn` throws or rejects with the Validation error (whichever way the call reports it). */
export async function assertValidation(fn: () => unknown, what: string): Promise<void> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof TaskflowError, `${what}: expected a TaskflowError, got ${String(e)}`);
    assert.equal(e.code, "Validation", `${what}: ${e.message}`);
    return;
  }
  assert.fail(`${what}: expected a Validation error, but the call succeeded`);
}

/** Waits until the time is `fraction` (0–1) of the way into a fixed window of `windowMs`. */
export async function waitForWindowPoint(windowMs: number, fraction: number): Promise<void> {
  const into = Date.now() % windowMs;
  const target = fraction * windowMs;
  await sleep(into <= target ? target - into : windowMs - into + target);
}

/** Exactly one of `results` is true. */
export function assertExactlyOne(results: readonly boolean[], what: string): void {
  assert.equal(results.filter(Boolean).length, 1, `${what}: ${JSON.stringify(results)}`);
}

/** Waits out the end of the current fixed window when fewer than `marginMs` of it are left. */
export async function avoidWindowEnd(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await sleep(left + 5);
}
