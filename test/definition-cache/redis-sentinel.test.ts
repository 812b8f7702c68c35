/**
 * The Redis provider reached through Sentinel (REDIS_SENTINELS +
 * REDIS_SENTINEL_NAME, no REDIS_URL): a node asks a real Sentinel of the
 * test's own for the master and keeps its payloads there.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Redis } from "ioredis";
import { coordinationTestOptions } from "../coordination/support/coordination-backends.ts";
import { minimal } from "../support/definition-fixtures.ts";
import { freePort } from "../support/server-process.ts";
import { startOwnRedis, startOwnSentinel, stopOwnRedis } from "./support/own-redis.ts";
import { freshCachePrefix, startNode } from "./support/taskflow-node.ts";

const KEY = "cfg-sentinel";
const MASTER = "tfmaster";

void describe("the Redis provider by Sentinel", await coordinationTestOptions("redis"), () => {
  void it("finds the master through the sentinels and caches there", async () => {
    const masterPort = await freePort();
    const master = await startOwnRedis(masterPort);
    const sentinelPort = await freePort();
    const sentinel = await startOwnSentinel(sentinelPort, MASTER, masterPort);
    const admin = new Redis(masterPort, "127.0.0.1");
    const prefix = freshCachePrefix();
    try {
      const node = await startNode({
        definitionCache: "redis",
        redisUrl: null,
        redisSentinels: [{ host: "127.0.0.1", port: sentinelPort }],
        redisSentinelName: MASTER,
        definitionCachePrefix: prefix,
      });
      try {
        assert.equal(node.tf.config.redisUrl, null);
        const published = await node.call("POST", `/v1/definitions/${KEY}/publish`, minimal(KEY));
        assert.equal(published.status, 201, JSON.stringify(published.body));
        for (let i = 0; i < 2; i++) {
          const read = await node.call("GET", `/v1/definitions/${KEY}/versions/1`);
          assert.equal(read.status, 200);
        }
        const stats = node.tf.definitionCache.stats;
        assert.ok(stats.fills >= 1 && stats.hits >= 1, JSON.stringify(stats));
        const keys = await admin.keys(`${prefix}*`);
        assert.ok(keys.length >= 1, "no payload on the master the sentinel names");
      } finally {
        await node.close();
      }
    } finally {
      admin.disconnect();
      await sentinel.stop();
      await stopOwnRedis(master);
    }
  });
});
