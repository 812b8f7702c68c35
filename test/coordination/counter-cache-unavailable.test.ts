/**
 * A backend that cannot be reached makes rate limiters and the TTL cache
 * reject with UnavailableError (HTTP 503), soon: never a hang, never a generic
 * Error. Closed ports on 127.0.0.1 (nothing listens on port 1) for Redis,
 * PostgreSQL and MariaDB; and a Redis that answered, then went away behind a
 * proxy this test controls, then came back.
 */
import assert from "node:assert/strict";
import { createServer, connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { UnavailableError } from "../../src/domain/unavailable.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import { coordinationTestOptions, REDIS_TEST_URL } from "./support/coordination-backends.ts";

/** Redis's connectTimeout is 2 s and the SQL pools' 10 s; refused ports answer at once. */
const BOUND_MS = 5000;

async function assertUnavailable(what: string, call: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  await assert.rejects(call, (e: unknown) => {
    assert.ok(e instanceof UnavailableError, `${what}: ${String(e)}`);
    return true;
  });
  const took = Date.now() - started;
  assert.ok(took < BOUND_MS, `${what} took ${took} ms`);
}

/** Every rate limiter and cache call on `c` is UnavailableError. */
async function assertAllUnavailable(c: Coordination): Promise<void> {
  const fixed = c.limiters.limiter({ name: "down", points: 5, windowMs: 1000 });
  const sliding = c.limiters.limiter({
    name: "down",
    points: 5,
    windowMs: 1000,
    window: "sliding",
  });
  await assertUnavailable("consume (fixed)", () => fixed.consume("acme", "k"));
  await assertUnavailable("consume (sliding)", () => sliding.consume("acme", "k"));
  await assertUnavailable("reset", () => fixed.reset("acme", "k"));
  await assertUnavailable("cache.get", () => c.cache.get("acme", "k"));
  await assertUnavailable("cache.set", () => c.cache.set("acme", "k", 1, 1000));
  await assertUnavailable("cache.setIfAbsent", () => c.cache.setIfAbsent("acme", "k", 1, 1000));
  await assertUnavailable("cache.compareAndSet", () =>
    c.cache.compareAndSet("acme", "k", 1, 2, 1000),
  );
  await assertUnavailable("cache.delete", () => c.cache.delete("acme", "k"));
}

const redisUp = await coordinationTestOptions("redis");

void describe("rate limiters and the TTL cache with their backend down", () => {
  void it("Redis on a closed port: UnavailableError, at once, also under concurrency", async () => {
    const c = openCoordination({
      kind: "redis",
      keyPrefix: "down:",
      redisUrl: "redis://127.0.0.1:1",
    });
    try {
      const limiter = c.limiters.limiter({ name: "down", points: 5, windowMs: 1000 });
      // The first burst meets the lazy connection while it dials.
      const settled = await Promise.allSettled(
        Array.from({ length: 20 }, () => limiter.consume("acme", "k")),
      );
      for (const s of settled) {
        assert.equal(s.status, "rejected");
        assert.ok(s.reason instanceof UnavailableError, String(s.reason));
      }
      await assertAllUnavailable(c);
    } finally {
      await c.close();
    }
  });

  for (const [name, url] of [
    ["PostgreSQL", "postgres://postgres@127.0.0.1:1/taskflow"],
    ["MariaDB", "mysql://root@127.0.0.1:1/taskflow"],
  ] as const) {
    void it(`${name} on a closed port: UnavailableError`, async () => {
      const db = openDatabase(url);
      const c = openCoordination({ kind: "sql", keyPrefix: "down:", sql: db.coordinationContext });
      try {
        await assertAllUnavailable(c);
      } finally {
        await c.close();
        await db.close();
      }
    });
  }

  void it(
    "Redis that goes away: UnavailableError while it is gone, working again once it is back",
    redisUp,
    async () => {
      const upstream = new URL(REDIS_TEST_URL);
      const sockets = new Set<Socket>();
      let up = true;
      // A TCP proxy in front of the real Redis, so this test can cut it off.
      const proxy = createServer((client) => {
        if (!up) return client.destroy();
        const server = connect(Number(upstream.port || 6379), upstream.hostname);
        for (const s of [client, server]) {
          sockets.add(s);
          s.on("error", () => s.destroy());
          s.on("close", () => sockets.delete(s));
        }
        client.pipe(server).pipe(client);
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      const { port } = proxy.address() as { port: number };
      const c = openCoordination({
        kind: "redis",
        keyPrefix: `tftest:down:${port}:${Date.now()}:`,
        redisUrl: `redis://127.0.0.1:${port}`,
      });
      try {
        const limiter = c.limiters.limiter({ name: "flap", points: 100, windowMs: 60_000 });
        assert.equal((await limiter.consume("acme", "k")).allowed, true);
        await c.cache.set("acme", "k", "v", 60_000);

        up = false;
        for (const s of sockets) s.destroy();
        await assertUnavailable("consume while down", () => limiter.consume("acme", "k"));
        await assertUnavailable("cache.get while down", () => c.cache.get("acme", "k"));

        up = true;
        // ioredis reconnects in the background (50 ms, 100 ms, … between attempts).
        const deadline = Date.now() + BOUND_MS;
        let back = false;
        while (!back && Date.now() < deadline) {
          try {
            back = (await limiter.consume("acme", "k")).allowed;
          } catch (e) {
            assert.ok(e instanceof UnavailableError, String(e));
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        assert.ok(back, "Redis came back but consume still fails");
        assert.equal(await c.cache.get("acme", "k"), "v");
        await c.cache.delete("acme", "k");
        await limiter.reset("acme", "k");
      } finally {
        await c.close();
        for (const s of sockets) s.destroy();
        await new Promise((resolve) => proxy.close(resolve));
      }
    },
  );
});
