/**
 * WF_DEFINITION_CACHE_ENABLED=false on a real node: payload caching is off but
 * the coordination between nodes is not. A publish still begins and completes
 * its fence (the data revision moves past both rows), every read goes to the
 * store (counted as a bypass, never a hit, miss or fill), and with the Redis
 * provider chosen no connection to Redis is opened at all.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { coordinationTestOptions } from "../coordination/support/coordination-backends.ts";
import { minimal } from "../support/definition-fixtures.ts";
import { freshCachePrefix, ownRedis, startNode, type TestNode } from "./support/taskflow-node.ts";

const KEY = "cfg-disabled";
const READS = 3;

/** Publishes twice and reads READS times; checks the ledger moved and nothing was cached. */
async function publishAndReadUncached(node: TestNode): Promise<void> {
  const cache = node.tf.definitionCache;
  for (let v = 1; v <= 2; v++) {
    const before = await cache.consistency.state("data");
    // A new name each time: the same definition again would be unchanged, no version 2.
    const doc = { ...minimal(KEY), name: `Disabled v${v}` };
    const published = await node.call("POST", `/v1/definitions/${KEY}/publish`, doc);
    assert.equal(published.status, 201, JSON.stringify(published.body));
    assert.equal(published.body.version, v);
    const after = await cache.consistency.state("data");
    // The fence's row, then the completion's fresh row: two ids past the old revision.
    assert.ok(
      after.revision >= before.revision + 2,
      `revision ${before.revision} → ${after.revision}`,
    );
    assert.equal(after.fenced, false, "the publish left its fence open");
  }
  const bypasses = cache.stats.bypasses;
  for (let i = 0; i < READS; i++) {
    const read = await node.call("GET", `/v1/definitions/${KEY}/versions/2`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
  }
  assert.ok(cache.stats.bypasses >= bypasses + READS, JSON.stringify(cache.stats));
  const { hits, misses, fills, joined } = cache.stats;
  assert.deepEqual({ hits, misses, fills, joined }, { hits: 0, misses: 0, fills: 0, joined: 0 });
}

const redisOptions = await coordinationTestOptions("redis");

void describe("payload caching off (WF_DEFINITION_CACHE_ENABLED=false)", () => {
  void it("memory provider: fences still written and completed, every read from the store", async () => {
    const node = await startNode({ definitionCacheEnabled: "false" });
    try {
      assert.equal(node.tf.config.definitionCacheEnabled, false);
      await publishAndReadUncached(node);
    } finally {
      await node.close();
    }
  });

  void it(
    "redis provider: the same, and no connection to Redis is opened",
    redisOptions,
    async () => {
      const server = await ownRedis();
      try {
        const node = await startNode({
          definitionCache: "redis",
          definitionCacheEnabled: false,
          redisUrl: server.url,
          definitionCachePrefix: freshCachePrefix(),
        });
        try {
          assert.equal(node.tf.definitionCache.provider.kind, "redis");
          await publishAndReadUncached(node);
          assert.equal(await server.clients(), 1, "a connection besides the test's own");
          assert.equal(await server.admin.dbsize(), 0);
        } finally {
          await node.close();
        }
      } finally {
        await server.stop();
      }
    },
  );
});
