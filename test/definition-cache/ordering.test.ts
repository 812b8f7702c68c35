/**
 * Ordering and pruning as the read path sees them, on two in-process nodes
 * over one real database (support/cache-nodes.ts). The ledger-level contract
 * (cache-ledger-contract.test.ts) already proves that a fence completed after
 * a younger one raises the revision and that a held prune loses no row; these
 * tests prove what a reader gets from that:
 *
 * - fences finishing out of order: fence A (smaller id) and fence B (larger)
 *   begin, B completes; no reader fills under B's revision while A is open,
 *   and even an entry planted there (what a reader that ignored the fence
 *   would have cached) is never served once A's write lands and A completes:
 *   the revision moves above B's and the next read misses and reads A's data;
 * - a prune paused on node 1 while node 2 completes a change and fills: the
 *   revision node 2 filled under survives the prune, and node 2 keeps hitting.
 *
 * How the prune is paused: its maximum is read inside its own DELETE (a
 * derived table, see sql/prune.ts), so there is no point between reading the
 * maximum and deleting for a test to stop at. What can be held is the rest of
 * its transaction: node 1 runs the real prune statement inside a transaction
 * the test keeps open (its row locks and, on MariaDB, its gap locks held)
 * while node 2 publishes and reads, then commits.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { StoreSchema } from "../../src/adapters/store/db-schema.ts";
import { prune } from "../../src/adapters/store/cache-ledger/sql/prune.ts";
import { dialectFor } from "../../src/adapters/store/open-database.ts";
import { cacheKey } from "../../src/engine/definition-cache/cache-key.ts";
import type { DefinitionVersion } from "../../src/domain/definition-version.ts";
import {
  latest,
  publish,
  statsOf,
  TENANT,
  variantOptions,
  variants,
  withCacheNodes,
  type CacheNode,
  type CacheNodes,
} from "./support/cache-nodes.ts";

/** The key the read path uses for latestPublished(key) at `revision` (cached-definition-store.ts). */
const latestKey = (nodes: CacheNodes, key: string, revision: number) =>
  cacheKey({
    prefix: nodes.prefix,
    deployment: nodes.a.database.deploymentId(),
    revision,
    typeName: "DefinitionVersion|undefined",
    logical: { tenant: TENANT, operation: "versions.latest", args: { key } },
  });

async function completedIds(node: CacheNode): Promise<number[]> {
  const k = node.database.coordinationContext.db as Kysely<StoreSchema>;
  const rows = await k
    .selectFrom("cache_mutations")
    .select("id")
    .where("scope", "=", "workflow")
    .where("completed", "=", 1)
    .execute();
  return rows.map((r) => Number(r.id));
}

for (const v of variants) {
  void describe(`definition cache ordering on ${v.backend.name}, ${v.provider} provider`, async () => {
    const opts = await variantOptions(v);

    void it(
      "fence A begins before fence B, B completes first: the reader never keeps B's revision",
      opts,
      () =>
        withCacheNodes(v, async (nodes) => {
          const { a, b } = nodes;
          const ledger = b.database.cacheLedger;
          assert.equal(await publish(a, "leave", "v1"), 1);
          assert.equal(await latest(b, "leave"), 1);

          // Fence A: node A's publish of leave v2, its write held before it reaches the store.
          const heldA = a.gate.hold("publishVersion", "before");
          const publishingA = publish(a, "leave", "v2");
          await heldA.reached;
          const [fenceA] = await ledger.listIncomplete();
          assert.ok(fenceA !== undefined, "A's fence is in");
          // Fence B: node B publishes another key; it begins after A, so its fence id is larger,
          // and it completes first.
          assert.equal(await publish(b, "other", "v1"), 1);
          const revisionB = (await ledger.readState("data")).revision;
          assert.ok(
            revisionB > fenceA.id,
            `B's revision ${revisionB} is above fence A ${fenceA.id}`,
          );
          assert.deepEqual(await ledger.readState("data"), { revision: revisionB, fenced: true });

          // A reader on B meanwhile: A's fence keeps it on the store, so nothing lands under B's revision.
          const before = statsOf(b);
          assert.equal(await latest(b, "leave"), 1);
          assert.equal(b.manager.stats.fills, before.fills, "nothing filled under B's revision");
          assert.equal(b.manager.stats.bypasses - before.bypasses, 1);
          // What a reader that ignored the fence would have cached under B's revision: v1.
          const v1 = await b.gate.latestPublished(TENANT, "leave");
          await b.manager.provider.set(latestKey(nodes, "leave", revisionB), v1 ?? null);

          heldA.release();
          assert.equal(await publishingA, 2);
          const revisionA = (await ledger.readState("data")).revision;
          assert.ok(
            revisionA > revisionB,
            `A's completion ${revisionA} moved above B's ${revisionB}`,
          );

          // The next read misses at A's revision and reads A's data from the store; then hits.
          const reads = b.gate.calls.latestPublished;
          const misses = b.manager.stats.misses;
          assert.equal(await latest(b, "leave"), 2, "A's data, never the entry under B's revision");
          assert.equal(b.manager.stats.misses - misses, 1);
          assert.equal(b.gate.calls.latestPublished - reads, 1);
          assert.equal(await latest(b, "leave"), 2);
          assert.equal(b.gate.calls.latestPublished - reads, 1, "then a hit");
          // The planted entry is still there, only unreachable…
          const planted = await b.manager.provider.get(latestKey(nodes, "leave", revisionB));
          assert.equal(planted.hit && (planted.value as DefinitionVersion).version, 1);
          // …and the key helper is the read path's: an entry planted at the current revision is served.
          const marker = { ...(v1 as DefinitionVersion), version: 99 };
          await b.manager.provider.set(latestKey(nodes, "leave", revisionA), marker);
          assert.equal(await latest(b, "leave"), 99);
        }),
    );

    void it(
      "a prune held open on node 1 while node 2 completes and fills: node 2 keeps hitting",
      opts,
      () =>
        withCacheNodes(v, async ({ a, b, url }) => {
          for (let i = 1; i <= 3; i++) assert.equal(await publish(a, "leave", `v${i}`), i);
          const k1 = a.database.coordinationContext.db as Kysely<StoreSchema>;
          let deleted = 0;
          let node2: Promise<number> | undefined;
          let doneWhileHeld = false;
          await k1.transaction().execute(async (trx) => {
            deleted = await prune(trx, dialectFor(url));
            // Node 2: publishes v4 (fence, write, completion), then reads it twice (miss + fill, hit).
            node2 = (async () => {
              await publish(b, "leave", "v4");
              assert.equal(await latest(b, "leave"), 4);
              assert.equal(await latest(b, "leave"), 4);
              doneWhileHeld = true;
              return (await b.database.cacheLedger.readState("data")).revision;
            })();
            // Long enough for node 2 to finish where nothing blocks it (PostgreSQL); MariaDB's
            // gap locks and SQLite's one connection make it wait for the commit instead.
            await Promise.race([node2, sleep(1500)]);
          });
          const revision = await node2!;
          assert.equal(deleted, 5, "three completions: six rows, all but the newest");
          if (v.backend.name === "postgres")
            assert.ok(doneWhileHeld, "node 2 ran inside the prune");

          assert.ok((await completedIds(a)).includes(revision), "node 2's newest row survived");
          assert.equal((await a.database.cacheLedger.readState("data")).revision, revision);
          const reads = b.gate.calls.latestPublished;
          const hits = b.manager.stats.hits;
          assert.equal(await latest(b, "leave"), 4);
          assert.equal(b.manager.stats.hits - hits, 1, "still a hit at node 2's revision");
          assert.equal(b.gate.calls.latestPublished, reads);
          // A prune now (node 2's row is the newest) changes neither.
          await a.database.cacheLedger.prune();
          assert.deepEqual(await completedIds(a), [revision]);
          assert.equal(await latest(b, "leave"), 4);
          assert.equal(b.gate.calls.latestPublished, reads);
        }),
    );
  });
}
