/**
 * The definition lock a publish holds, `workflow-definition:<tenant>:<key>`,
 * on a real node, on both coordination backends that span nodes (sql and
 * Redis): it comes from the coordination's Locks (the test takes it there
 * itself), a publish waits while another holder has it, goes on when it is
 * released, and answers 503 Unavailable (problem+json) once
 * WF_DEFINITION_LOCK_TIMEOUT has passed. With the cache and coordination on
 * one Redis, the lock lives under the coordination's prefix and nothing but
 * payload keys ever appears under the cache's.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import type { ConfigOverrides } from "../../src/config/config.ts";
import type { CoordinationKind } from "../../src/engine/coordination/coordination-port.ts";
import type { LockHandle } from "../../src/engine/coordination/locks-port.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";
import { minimal } from "../support/definition-fixtures.ts";
import { freshCachePrefix, startNode, type Reply, type TestNode } from "./support/taskflow-node.ts";

const KEY = "cfg-lock";
const TENANT = "default";
const LOCK = `workflow-definition:${TENANT}:${KEY}`;
/** Long enough to see a publish wait, short enough to wait out: the timeout case takes 1.5 s. */
const LOCK_TIMEOUT_MS = 1500;
/** What a payload key looks like (cache-key.ts); prefixes here are letters, digits and colons. */
const payloadKey = (prefix: string) => new RegExp(`^${prefix}v2:[0-9a-f]{32}:[0-9]+:[0-9a-f]{64}$`);

interface Setup {
  overrides: ConfigOverrides;
  /** Keys under the cache prefix and the coordination prefix (Redis only). */
  keys?(): Promise<{ cache: string[]; coordination: string[] }>;
  cachePrefix?: string;
  cleanup(): Promise<void>;
}

function setup(kind: Exclude<CoordinationKind, "memory">): Setup {
  const common = { definitionLockTimeout: LOCK_TIMEOUT_MS };
  if (kind === "sql") return { overrides: common, cleanup: () => Promise.resolve() };
  const cachePrefix = freshCachePrefix();
  const keyPrefix = `tftest:coord:${randomBytes(6).toString("hex")}:`;
  const admin = new Redis(REDIS_TEST_URL);
  return {
    overrides: {
      ...common,
      coordination: "redis",
      definitionCache: "redis",
      redisUrl: REDIS_TEST_URL,
      keyPrefix,
      definitionCachePrefix: cachePrefix,
    },
    cachePrefix,
    keys: async () => ({
      cache: await admin.keys(`${cachePrefix}*`),
      coordination: await admin.keys(`${keyPrefix}*`),
    }),
    async cleanup() {
      admin.disconnect();
      await deleteRedisPrefix(cachePrefix);
      await deleteRedisPrefix(keyPrefix);
    },
  };
}

async function holdLock(node: TestNode): Promise<LockHandle> {
  const held = await node.tf.coordination.locks.acquire(TENANT, LOCK, { leaseMs: 30_000 });
  assert.ok(held !== null, "the definition lock was already held");
  return held;
}

const publish = (node: TestNode) =>
  node.call("POST", `/v1/definitions/${KEY}/publish`, minimal(KEY));

/** The request's promise, and whether it has settled yet. */
function tracked(p: Promise<Reply>): { promise: Promise<Reply>; settled: () => boolean } {
  let done = false;
  const promise = p.finally(() => {
    done = true;
  });
  return { promise, settled: () => done };
}

for (const kind of ["sql", "redis"] as const) {
  const options = kind === "redis" ? await coordinationTestOptions("redis") : {};

  void describe(`the definition lock on ${kind} coordination`, options, () => {
    void it("a publish waits while another holds the lock, and goes on once it is released", async () => {
      const s = setup(kind);
      const node = await startNode(s.overrides);
      try {
        const held = await holdLock(node);
        const started = Date.now();
        const request = tracked(publish(node));
        await sleep(400);
        assert.equal(request.settled(), false, "the publish did not wait for the lock");
        // The fence comes after the lock: readers keep the cache while a publish waits.
        assert.equal((await node.tf.definitionCache.consistency.state("data")).fenced, false);
        if (s.keys) {
          const keys = await s.keys();
          assert.ok(
            keys.coordination.some((k) => k.endsWith(`lock:${TENANT}:${LOCK}`)),
            `no lock under the coordination prefix: ${keys.coordination.join(", ")}`,
          );
          assert.deepEqual(
            keys.cache.filter((k) => k.includes("workflow-definition")),
            [],
          );
        }
        await held.release();
        const reply = await request.promise;
        assert.equal(reply.status, 201, JSON.stringify(reply.body));
        assert.ok(Date.now() - started >= 400);
      } finally {
        await node.close();
        await s.cleanup();
      }
    });

    void it("a publish still waiting after WF_DEFINITION_LOCK_TIMEOUT is 503 Unavailable; free again after", async () => {
      const s = setup(kind);
      const node = await startNode(s.overrides);
      try {
        const held = await holdLock(node);
        const started = Date.now();
        const refused = await publish(node);
        const waited = Date.now() - started;
        assert.equal(refused.status, 503, JSON.stringify(refused.body));
        assert.match(refused.type, /^application\/problem\+json/);
        assert.equal(refused.body.code, "Unavailable");
        assert.match(String(refused.body.detail), /WF_DEFINITION_LOCK_TIMEOUT/);
        assert.ok(waited >= LOCK_TIMEOUT_MS - 50, `answered after ${waited} ms`);
        // Nothing was changed: no version, no fence left behind.
        const versions = await node.call("GET", `/v1/definitions/${KEY}/versions`);
        assert.equal(versions.status, 404, JSON.stringify(versions.body));
        assert.equal((await node.tf.definitionCache.consistency.state("data")).fenced, false);
        await held.release();
        const accepted = await publish(node);
        assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
        for (let i = 0; i < 2; i++) {
          const read = await node.call("GET", `/v1/definitions/${KEY}/versions/1`);
          assert.equal(read.status, 200);
        }
        if (s.keys && s.cachePrefix !== undefined) {
          const { cache } = await s.keys();
          assert.ok(cache.length >= 1, "no payload was cached");
          const pattern = payloadKey(s.cachePrefix);
          assert.deepEqual(
            cache.filter((k) => !pattern.test(k)),
            [],
            "a key under the cache prefix that is not a payload",
          );
        }
      } finally {
        await node.close();
        await s.cleanup();
      }
    });
  });
}
