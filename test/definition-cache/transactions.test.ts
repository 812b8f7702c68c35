/**
 * The definition cache's read and write path around transactions and failed
 * writes, on in-process nodes over real databases (support/cache-nodes.ts):
 *
 * - a read inside a store transaction runs the factory and fills nothing;
 * - a write that rolls back (a publish refused by checkHeads inside the
 *   store's transaction) still completes its fence, and the revision moves;
 * - a write that fails with UnavailableError leaves its fence open (in doubt);
 * - a publish nobody waits for (its caller went away) still completes its
 *   fence once the write committed;
 * - single flight: 50 concurrent misses of one key make one store read.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { TaskflowError, validation } from "../../src/domain/errors.ts";
import { isUnavailable, UnavailableError } from "../../src/domain/unavailable.ts";
import type { CachedRead } from "../../src/engine/definition-cache/cache-manager.ts";
import type { DefinitionVersion } from "../../src/domain/definition-version.ts";
import {
  definitionDoc,
  latest,
  publish,
  statsOf,
  TENANT,
  variantOptions,
  variants,
  withCacheNodes,
} from "./support/cache-nodes.ts";

/** SQLite, PostgreSQL and MariaDB with memory providers, and PostgreSQL with one Redis. */
const chosen = variants.filter((v) => v.provider === "memory" || v.backend.name === "postgres");

const v2Command = (checkHeads?: () => void) => ({
  tenantId: TENANT,
  key: "leave",
  name: "v2",
  definition: definitionDoc("leave", "v2"),
  createdBy: "alice",
  at: Date.now(),
  checkHeads,
});

async function until(what: string, ok: () => Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}

for (const v of chosen) {
  void describe(`definition cache transactions on ${v.backend.name}, ${v.provider} provider`, async () => {
    const opts = await variantOptions(v);

    void it("a read inside a transaction runs the factory and fills nothing", opts, () =>
      withCacheNodes(v, async ({ a }) => {
        const spec: CachedRead<{ n: number }> = {
          view: "data",
          typeName: "Probe",
          logical: { tenant: TENANT, operation: "probe", args: { id: 1 } },
        };
        let runs = 0;
        const factory = () => Promise.resolve({ n: ++runs });
        const before = statsOf(a);
        assert.deepEqual(await a.manager.read({ ...spec, inTransaction: true }, factory), { n: 1 });
        assert.deepEqual(await a.manager.read({ ...spec, inTransaction: true }, factory), { n: 2 });
        const inside = statsOf(a);
        assert.equal(inside.bypasses - before.bypasses, 2);
        assert.equal(inside.fills, before.fills, "nothing filled inside");
        // Outside, the next read is a miss: the factory runs again, and fills.
        assert.deepEqual(await a.manager.read(spec, factory), { n: 3 });
        assert.equal(a.manager.stats.misses - inside.misses, 1);
        assert.equal(a.manager.stats.fills - inside.fills, 1);
        assert.deepEqual(await a.manager.read(spec, factory), { n: 3 }, "then a hit");
        assert.equal(runs, 3);
      }),
    );

    void it("a write that rolls back still completes its fence and moves the revision", opts, () =>
      withCacheNodes(v, async ({ a, b }) => {
        assert.equal(await publish(a, "leave", "v1"), 1);
        assert.equal(await latest(b, "leave"), 1);
        const ledger = a.database.cacheLedger;
        const revision = (await ledger.readState("data")).revision;
        const refused = a.store.publishVersion(
          v2Command(() => {
            throw validation("two keys take one trigger route");
          }),
        );
        await assert.rejects(refused, (e) => e instanceof TaskflowError && e.code === "Validation");
        const after = await ledger.readState("data");
        assert.equal(after.fenced, false, "the fence was completed");
        assert.ok(after.revision > revision, `revision ${after.revision} > ${revision}`);
        assert.deepEqual(await ledger.listIncomplete(), []);
        assert.equal(a.manager.stats.inDoubt, 0);
        // Rolled back: the store still has v1 only; B misses at the new revision and reads it.
        const reads = b.gate.calls.latestPublished;
        assert.equal(await latest(b, "leave"), 1);
        assert.equal(b.gate.calls.latestPublished - reads, 1);
        assert.equal((await a.database.definitions.listVersions(TENANT, "leave")).length, 1);
      }),
    );

    void it("a write that fails with UnavailableError leaves its fence open (in doubt)", opts, () =>
      withCacheNodes(v, async ({ a, b }) => {
        assert.equal(await publish(a, "leave", "v1"), 1);
        assert.equal(await latest(b, "leave"), 1);
        const ledger = a.database.cacheLedger;
        const revision = (await ledger.readState("data")).revision;
        a.gate.failNext("publishVersion", new UnavailableError("connection lost mid-write"));
        await assert.rejects(a.store.publishVersion(v2Command()), (e) => isUnavailable(e));
        assert.equal(a.manager.stats.inDoubt, 1);
        const open = await ledger.listIncomplete();
        assert.equal(open.length, 1, "the fence stays open");
        assert.equal(open[0]?.owner, "test-host/A/boot");
        assert.deepEqual(await ledger.readState("data"), { revision, fenced: true });
        // Readers stay on the store meanwhile, on both nodes.
        const before = statsOf(b);
        assert.equal(await latest(b, "leave"), 1);
        assert.equal(await latest(b, "leave"), 1);
        assert.equal(b.manager.stats.bypasses - before.bypasses, 2);
        assert.equal(b.manager.stats.fills, before.fills);
        // Once an operator (or the reaper) completes it, caching resumes at a new revision.
        assert.deepEqual(await ledger.completeOrphan(open[0].mutationId), { completed: true });
        assert.equal(await latest(b, "leave"), 1);
        assert.equal(b.manager.stats.fills - before.fills, 1);
      }),
    );

    void it(
      "a publish nobody waits for still completes its fence once the write committed",
      opts,
      () =>
        withCacheNodes(v, async ({ a, b }) => {
          assert.equal(await publish(a, "leave", "v1"), 1);
          const ledger = a.database.cacheLedger;
          const revision = (await ledger.readState("data")).revision;
          // The store's answer is held after the commit: the caller would be waiting for it here.
          const held = a.gate.hold("publishVersion", "after");
          // The caller goes away (an HTTP client that disconnected): nothing awaits this promise;
          // the catch only keeps an unexpected rejection from ending the test process.
          a.store.publishVersion(v2Command()).catch(() => undefined);
          assert.deepEqual(await held.reached, { published: true, version: 2 });
          assert.equal((await a.database.definitions.latestPublished(TENANT, "leave"))?.version, 2);
          assert.equal((await ledger.listIncomplete()).length, 1, "committed, not completed yet");
          held.release();
          await until(
            "the fence is completed",
            async () => !(await ledger.readState("data")).fenced,
          );
          assert.ok((await ledger.readState("data")).revision > revision);
          assert.equal(await latest(b, "leave"), 2);
          assert.equal(await latest(a, "leave"), 2);
        }),
    );

    void it("single flight: 50 concurrent misses of one key make exactly 1 store read", opts, () =>
      withCacheNodes(v, async ({ a, b }) => {
        assert.equal(await publish(a, "leave", "v1"), 1);
        const before = statsOf(b);
        const reads = b.gate.calls.latestPublished;
        // The one store read is held until all 50 have missed, so none of them can hit a fill.
        const held = b.gate.hold("latestPublished", "after");
        const all = Array.from({ length: 50 }, () => b.store.latestPublished(TENANT, "leave"));
        await held.reached;
        await until("50 misses", () =>
          Promise.resolve(b.manager.stats.misses - before.misses >= 50),
        );
        held.release();
        const got = await Promise.all(all);
        assert.equal(b.gate.calls.latestPublished - reads, 1, "one store read");
        assert.deepEqual(
          got.map((d) => d?.version),
          got.map(() => 1),
        );
        const after = statsOf(b);
        assert.equal(after.misses - before.misses, 50);
        assert.equal(after.joined - before.joined, 49);
        assert.equal(after.fills - before.fills, 1);
        // Each caller has its own copy: changing one changes no other.
        (got[0] as DefinitionVersion).body = "changed";
        assert.ok(got.slice(1).every((d) => d?.body !== "changed"));
        assert.equal(await latest(b, "leave"), 1);
        assert.equal(b.gate.calls.latestPublished - reads, 1, "and the next read hits");
      }),
    );
  });
}
