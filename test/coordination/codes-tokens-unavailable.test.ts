/**
 * A backend that cannot be reached makes codes and tokens reject with the
 * domain's UnavailableError (→ 503), never a driver's error (→ 500): for
 * PostgreSQL, MariaDB and Redis, each pointed at a port nobody listens on
 * (127.0.0.1:1, refused at once on loopback), so no server is needed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import { isUnavailable } from "../../src/domain/unavailable.ts";

const T = "tenant-a";
const DEAD = {
  postgres: "postgres://postgres@127.0.0.1:1/taskflow",
  mysql: "mysql://root@127.0.0.1:1/taskflow",
  redis: "redis://127.0.0.1:1",
} as const;

async function withDead(
  name: keyof typeof DEAD,
  fn: (c: Coordination) => Promise<void>,
): Promise<void> {
  if (name === "redis") {
    const c = openCoordination({ kind: "redis", keyPrefix: "tfdead:", redisUrl: DEAD.redis });
    try {
      await fn(c);
    } finally {
      await c.close();
    }
    return;
  }
  const db = openDatabase(DEAD[name]);
  const c = openCoordination({ kind: "sql", keyPrefix: "tfdead:", sql: db.coordinationContext });
  try {
    await fn(c);
  } finally {
    await c.close();
    await db.close();
  }
}

describe("codes and tokens on an unreachable backend", () => {
  for (const name of ["postgres", "mysql", "redis"] as const) {
    it(`${name}: every call rejects with UnavailableError`, async () => {
      await withDead(name, async (c) => {
        const calls: [string, () => Promise<unknown>][] = [
          ["tokens.issue", () => c.tokens.issue(T, { purpose: "p", subject: "s" })],
          ["tokens.verify", () => c.tokens.verify(T, "p", "some-token")],
          ["tokens.rotate", () => c.tokens.rotate(T, "p", "some-token")],
          ["tokens.list", () => c.tokens.list(T, "p")],
          ["tokens.cleanup", () => c.tokens.cleanup(10)],
          ["codes.verify", () => c.codes.verify(T, "s", "p", "123456")],
        ];
        for (const [what, call] of calls) {
          await assert.rejects(call(), (e: unknown) => isUnavailable(e), what);
        }
      });
    });
  }
});
