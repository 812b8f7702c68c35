/**
 * The seed's timelines of the definition cache, each a named test, on two
 * in-process nodes over one real database (SQLite, PostgreSQL, MariaDB), each
 * node with its own memory provider or both on one Redis (support/cache-nodes.ts):
 *
 * 1. a node changes a definition: while its fence is open the other node
 *    reads the store and fills nothing; after the completion it misses once
 *    at the new revision, then hits, and serves the new version;
 * 2. a slow reader finishes after the change: its read of v1 is answered
 *    late, after the other node published v2; it returns v1 (it started
 *    before) but does not plant it, and every read that starts after the
 *    publish returned sees v2 on both nodes.
 *
 * (Timeline 3, a writer killed -9 between fence and completion, is its own file.)
 * Strict consistency: each read asks the ledger. The bounded mode sees another
 * node's change only within its poll, so these exact steps are the strict
 * mode's; the bounded mode's bound is proven by three-nodes.property.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  latest,
  publish,
  statsOf,
  variantOptions,
  variants,
  withCacheNodes,
} from "./support/cache-nodes.ts";

for (const v of variants) {
  void describe(`definition cache timelines on ${v.backend.name}, ${v.provider} provider`, async () => {
    const opts = await variantOptions(v);

    void it("timeline 1: a node changes a definition", opts, () =>
      withCacheNodes(v, async ({ a, b }) => {
        assert.equal(await publish(a, "leave", "v1"), 1);
        // v1 cached on both nodes: a miss fills, the next read hits.
        for (const node of [a, b]) {
          assert.equal(await latest(node, "leave"), 1);
          assert.equal(await latest(node, "leave"), 1);
          assert.ok(node.manager.stats.hits >= 1, `${node.name} hit v1`);
        }
        const revisionBefore = (await b.database.cacheLedger.readState("data")).revision;

        // A begins its change: the fence is in, the store write is held before it runs.
        const held = a.gate.hold("publishVersion", "before");
        const publishing = publish(a, "leave", "v2");
        await held.reached;
        assert.equal((await b.database.cacheLedger.readState("data")).fenced, true);

        const beforeFence = statsOf(b);
        const storeReads = b.gate.calls.latestPublished;
        for (let i = 0; i < 3; i++) assert.equal(await latest(b, "leave"), 1, "the store has v1");
        const inFence = statsOf(b);
        assert.equal(inFence.bypasses - beforeFence.bypasses, 3, "every read bypasses");
        assert.equal(b.gate.calls.latestPublished - storeReads, 3, "every read reads the store");
        assert.equal(inFence.hits, beforeFence.hits, "no hit while fenced");
        assert.equal(inFence.fills, beforeFence.fills, "nothing filled while fenced");

        held.release();
        assert.equal(await publishing, 2);
        const after = await b.database.cacheLedger.readState("data");
        assert.equal(after.fenced, false);
        assert.ok(
          after.revision > revisionBefore,
          `revision ${after.revision} > ${revisionBefore}`,
        );

        // B's next read misses at the new revision and reads v2 from the store; then it hits.
        const reads = b.gate.calls.latestPublished;
        assert.equal(await latest(b, "leave"), 2);
        const first = statsOf(b);
        assert.equal(first.misses - inFence.misses, 1, "a miss at the new revision");
        assert.equal(first.fills - inFence.fills, 1, "filled at the new revision");
        assert.equal(b.gate.calls.latestPublished - reads, 1);
        assert.equal(await latest(b, "leave"), 2);
        assert.equal(b.manager.stats.hits - first.hits, 1, "then a hit");
        assert.equal(b.gate.calls.latestPublished - reads, 1, "the hit did not read the store");
        assert.equal(await latest(a, "leave"), 2);
      }),
    );

    void it("timeline 2: a slow reader finishes after the change", opts, () =>
      withCacheNodes(v, async ({ a, b }) => {
        assert.equal(await publish(a, "leave", "v1"), 1);
        // B misses (nothing cached yet); its store read of v1 is answered late.
        const held = b.gate.hold("latestPublished", "after");
        const slow = latest(b, "leave");
        const read = (await held.reached) as { version: number } | undefined;
        assert.equal(read?.version, 1, "the slow reader read v1 from the store");

        assert.equal(await publish(a, "leave", "v2"), 2);
        // Every read that starts after the publish returned sees v2, on both nodes, while
        // the slow read is still out.
        for (const node of [a, b, a, b]) assert.equal(await latest(node, "leave"), 2);
        const staleBefore = b.manager.stats.staleFills;

        held.release();
        assert.equal(await slow, 1, "the slow reader returns what it read: it started before");
        assert.equal(b.manager.stats.staleFills - staleBefore, 1, "and does not fill it");
        assert.equal(b.manager.stats.staleFills, 1);

        const reads = b.gate.calls.latestPublished;
        for (const node of [a, b, a, b]) assert.equal(await latest(node, "leave"), 2);
        assert.equal(b.gate.calls.latestPublished, reads, "B hits v2, filled after the change");
      }),
    );
  });
}
