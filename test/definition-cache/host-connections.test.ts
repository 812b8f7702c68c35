/**
 * The Redis connections of the definition cache on a real node: one the host
 * hands in for a backend the configuration did not choose stops the start
 * before anything is opened; one handed in for the Redis provider is used and
 * never closed; one TaskFlow opened itself is closed with the node. Each case
 * has a redis-server of its own, so its client count is this test's alone.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { ConfigError } from "../../src/config/config-error.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { coordinationTestOptions } from "../coordination/support/coordination-backends.ts";
import { minimal } from "../support/definition-fixtures.ts";
import {
  freshCachePrefix,
  ownRedis,
  startNode,
  type OwnRedis,
  type TestNode,
} from "./support/taskflow-node.ts";

const KEY = "cfg-host-conn";

/** Publishes KEY and reads version 1 twice: the second read is a hit when payloads are cached. */
async function publishAndRead(node: TestNode): Promise<void> {
  const published = await node.call("POST", `/v1/definitions/${KEY}/publish`, minimal(KEY));
  assert.equal(published.status, 201, JSON.stringify(published.body));
  for (let i = 0; i < 2; i++) {
    const read = await node.call("GET", `/v1/definitions/${KEY}/versions/1`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`${what} within ${ms} ms`);
    await sleep(25);
  }
}

void describe("a connection handed in for a backend not chosen", () => {
  void it("stops createTaskflow before the database or Redis is touched, naming both", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tf-conflict-"));
    const file = join(dir, "never.db");
    const redis = new Redis({ lazyConnect: true, port: 1 });
    try {
      const config = loadConfig({
        env: { WF_DEFINITION_CACHE: "memory" },
        overrides: { databaseUrl: `sqlite:${file}`, nodeEnv: "development", logLevel: "silent" },
      });
      const error = await createTaskflow(config, { definitionCacheRedis: redis }).then(
        () => assert.fail("createTaskflow started"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(
        error.message,
        /option definitionCacheRedis .* environment WF_DEFINITION_CACHE=memory/,
      );
      const coordination = await createTaskflow(config, { redis }).then(
        () => assert.fail("createTaskflow started"),
        (e: unknown) => e,
      );
      assert.match(String(coordination), /option redis .* WF_COORDINATION=sql \(not set/);
      assert.equal(existsSync(file), false, "the SQLite file was created");
      assert.equal(redis.status, "wait", "the handed-in connection was dialled");
    } finally {
      redis.disconnect();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

void describe("the Redis provider's connection", await coordinationTestOptions("redis"), () => {
  let server: OwnRedis;

  void it("handed in by the host: used for payloads, never closed by TaskFlow", async () => {
    server = await ownRedis();
    const host = new Redis(server.url);
    const prefix = freshCachePrefix();
    try {
      await host.ping();
      const node = await startNode(
        { definitionCache: "redis", redisUrl: server.url, definitionCachePrefix: prefix },
        { definitionCacheRedis: host },
      );
      try {
        await publishAndRead(node);
        const stats = node.tf.definitionCache.stats;
        assert.ok(stats.fills >= 1 && stats.hits >= 1, JSON.stringify(stats));
        const keys = await server.admin.keys(`${prefix}*`);
        assert.ok(keys.length >= 1, "no payload reached Redis");
        assert.equal(await server.clients(), 2, "TaskFlow opened a connection of its own");
      } finally {
        await node.close();
      }
      assert.equal(host.status, "ready");
      assert.equal(await host.ping(), "PONG");
      assert.equal(await server.clients(), 2);
    } finally {
      host.disconnect();
      await server.stop();
    }
  });

  void it("opened by TaskFlow from REDIS_URL: closed with the node", async () => {
    server = await ownRedis();
    const prefix = freshCachePrefix();
    try {
      assert.equal(await server.clients(), 1);
      const node = await startNode({
        definitionCache: "redis",
        redisUrl: server.url,
        definitionCachePrefix: prefix,
      });
      try {
        await publishAndRead(node);
        assert.ok(node.tf.definitionCache.stats.hits >= 1);
        assert.equal(await server.clients(), 2);
      } finally {
        await node.close();
      }
      await until("the cache's connection closed", async () => (await server.clients()) === 1);
    } finally {
      await server.stop();
    }
  });
});
