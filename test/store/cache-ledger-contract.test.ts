/**
 * The definition cache's consistency ledger, one contract run unchanged on
 * every backend (real databases from test/support/backends.ts): revisions
 * move forward on each completion, whatever order fences finish in; an
 * incomplete fence fences its readers; pruning keeps the newest completed row
 * of each scope and every incomplete row, also while another handle writes;
 * an operator's completion of an orphaned fence is idempotent; owners' beats
 * tell the reaper how long each fence's owner has been silent, and silent
 * owners without fences are forgotten.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Kysely } from "kysely";
import { prune } from "../../src/adapters/store/cache-ledger/sql/prune.ts";
import { SqlCacheLedger } from "../../src/adapters/store/cache-ledger/sql-cache-ledger.ts";
import { dialectFor, openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import type { StoreSchema } from "../../src/adapters/store/db-schema.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import type {
  CacheLedger,
  CacheScope,
  MutationFence,
} from "../../src/engine/definition-cache/cache-ledger-port.ts";
import { CACHE_SCOPES } from "../../src/engine/definition-cache/cache-ledger-port.ts";
import { ledgerOwner } from "../../src/engine/definition-cache/ledger-owner.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";

const OWNER = ledgerOwner();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const codeOf = (e: unknown) => (e instanceof TaskflowError ? e.code : String(e));

/**
 * Two handles (two pools, as two nodes have) on one fresh database. SQLite is
 * one process per file, with one connection whose driver waits for a lock
 * synchronously: a second connection in this process would block the event
 * loop that has to commit the first. Its two "nodes" are then one handle, and
 * the concurrency is that of interleaved calls on it.
 */
async function withDatabases(
  b: Backend,
  fn: (one: Database, two: Database, url: string) => Promise<void>,
) {
  const test = await createTestDatabase(b);
  const one = openDatabase(test.url, { poolSize: 4 });
  const two = b.name === "sqlite" ? one : openDatabase(test.url, { poolSize: 4 });
  try {
    await one.migrate();
    await two.migrate();
    await fn(one, two, test.url);
  } finally {
    await one.close();
    if (two !== one) await two.close();
    await test.drop();
  }
}

const withLedger = (b: Backend, fn: (ledger: CacheLedger) => Promise<void>) =>
  withDatabases(b, (one) => fn(one.cacheLedger));

async function completedRowIds(db: Database, scope: CacheScope): Promise<number[]> {
  const k = db.coordinationContext.db as Kysely<StoreSchema>;
  const rows = await k
    .selectFrom("cache_mutations")
    .select("id")
    .where("scope", "=", scope)
    .where("completed", "=", 1)
    .orderBy("id")
    .execute();
  return rows.map((r) => Number(r.id));
}

/** A second ledger on the same database whose clock is `behindMs` in the past: beats made long ago. */
function pastLedger(db: Database, url: string, behindMs: number): CacheLedger {
  const k = db.coordinationContext.db as Kysely<StoreSchema>;
  return new SqlCacheLedger(k, dialectFor(url), () => Date.now() - behindMs);
}

async function ownerRows(db: Database): Promise<string[]> {
  const k = db.coordinationContext.db as Kysely<StoreSchema>;
  const rows = await k.selectFrom("cache_owners").select("owner").orderBy("owner").execute();
  return rows.map((r) => r.owner);
}

for (const b of backends) {
  void describe(`cache ledger on ${b.name}`, async () => {
    const opts = await backendTestOptions(b);

    void it("an empty ledger is at revision 0 and unfenced", opts, () =>
      withLedger(b, async (ledger) => {
        assert.equal(await ledger.revision("workflow"), 0);
        assert.equal(await ledger.routesRevision(), 0);
        assert.deepEqual(await ledger.readState("data"), { revision: 0, fenced: false });
        assert.deepEqual(await ledger.readState("routes"), { revision: 0, fenced: false });
        assert.deepEqual(await ledger.listIncomplete(), []);
        assert.equal(await ledger.prune(), 0);
      }),
    );

    void it("every completion moves the revision forward", opts, () =>
      withLedger(b, async (ledger) => {
        let last = 0;
        for (let i = 0; i < 5; i++) {
          const fence = await ledger.beginMutation("workflow", OWNER);
          assert.equal(await ledger.revision("workflow"), last, "begin does not move it");
          await ledger.completeMutation(fence);
          const now = await ledger.revision("workflow");
          assert.ok(now > last, `revision ${now} after ${last}`);
          last = now;
        }
      }),
    );

    void it("a fence completed after a younger one still raises the revision", opts, () =>
      withLedger(b, async (ledger) => {
        const a = await ledger.beginMutation("workflow", OWNER);
        const bFence = await ledger.beginMutation("workflow", OWNER);
        assert.ok(a.id < bFence.id, `ids ${a.id} < ${bFence.id}`);
        await ledger.completeMutation(bFence);
        const afterB = await ledger.dataRevision();
        assert.ok(afterB > bFence.id, `revision ${afterB} above fence ${bFence.id}`);
        assert.deepEqual(await ledger.readState("data"), { revision: afterB, fenced: true });
        await ledger.completeMutation(a);
        const afterA = await ledger.dataRevision();
        assert.ok(afterA > afterB, `revision after A (${afterA}) > after B (${afterB})`);
        assert.deepEqual(await ledger.readState("data"), { revision: afterA, fenced: false });
      }),
    );

    void it("an incomplete fence fences its scope's readers until completed", opts, () =>
      withLedger(b, async (ledger) => {
        const fence = await ledger.beginMutation("routes", OWNER);
        assert.equal(await ledger.hasIncomplete("routes"), true);
        assert.equal(await ledger.hasIncomplete("workflow"), false);
        assert.equal((await ledger.readState("routes")).fenced, true);
        assert.equal((await ledger.readState("data")).fenced, false, "routes leave data alone");
        const [listed] = await ledger.listIncomplete();
        assert.equal(listed?.mutationId, fence.mutationId);
        assert.equal(listed?.owner, OWNER);
        assert.equal(listed?.scope, "routes");
        assert.ok(listed !== undefined && listed.ageMs >= 0 && listed.ageMs < 60_000, "age");
        await ledger.completeMutation(fence);
        assert.equal(await ledger.hasIncomplete("routes"), false);
        assert.equal((await ledger.readState("routes")).fenced, false);
        const w = await ledger.beginMutation("workflow", OWNER);
        assert.equal((await ledger.readState("routes")).fenced, true, "routes see data fences");
        await ledger.completeMutation(w);
      }),
    );

    void it("the routes revision is the maximum over both scopes", opts, () =>
      withLedger(b, async (ledger) => {
        await ledger.completeMutation(await ledger.beginMutation("workflow", OWNER));
        const data = await ledger.dataRevision();
        assert.equal(await ledger.routesRevision(), data);
        await ledger.completeMutation(await ledger.beginMutation("routes", OWNER));
        const routes = await ledger.revision("routes");
        assert.ok(routes > data, `routes ${routes} > data ${data}`);
        assert.equal(await ledger.dataRevision(), data, "a routes change leaves data alone");
        assert.equal(await ledger.routesRevision(), routes);
        assert.equal((await ledger.readState("routes")).revision, routes);
        await ledger.completeMutation(await ledger.beginMutation("workflow", OWNER));
        assert.equal(await ledger.routesRevision(), await ledger.dataRevision());
      }),
    );

    void it("prune keeps the newest completed row per scope and every incomplete one", opts, () =>
      withDatabases(b, async (db) => {
        const ledger = db.cacheLedger;
        const open = [
          await ledger.beginMutation("workflow", OWNER),
          await ledger.beginMutation("routes", OWNER),
        ];
        for (let i = 0; i < 4; i++) {
          for (const scope of CACHE_SCOPES) {
            await ledger.completeMutation(await ledger.beginMutation(scope, OWNER));
          }
        }
        const before = { data: await ledger.dataRevision(), routes: await ledger.routesRevision() };
        const deleted = await ledger.prune();
        assert.equal(deleted, 2 * 4 * 2 - 2, "two rows per completion, all but the newest");
        for (const scope of CACHE_SCOPES) {
          assert.deepEqual(await completedRowIds(db, scope), [await ledger.revision(scope)]);
        }
        assert.equal(await ledger.dataRevision(), before.data);
        assert.equal(await ledger.routesRevision(), before.routes);
        const listed = (await ledger.listIncomplete()).map((m) => m.mutationId);
        assert.deepEqual(
          listed,
          open.map((f) => f.mutationId),
        );
        assert.equal(await ledger.prune(), 0);
      }),
    );

    void it("a prune held open in one handle while the other advances loses nothing", opts, () =>
      withDatabases(b, async (one, two, url) => {
        const parts = dialectFor(url);
        const k1 = one.coordinationContext.db as Kysely<StoreSchema>;
        for (let i = 0; i < 3; i++) {
          await two.cacheLedger.completeMutation(
            await two.cacheLedger.beginMutation("workflow", OWNER),
          );
        }
        const held = await two.cacheLedger.beginMutation("workflow", OWNER);
        let advanced: Promise<{ fence: MutationFence; revision: number }> | undefined;
        let deleted = 0;
        await k1.transaction().execute(async (trx) => {
          // The prune's statements ran; its transaction stays open (locks, snapshot) while…
          deleted = await prune(trx, parts);
          // …the other handle completes a fence and opens another.
          advanced = (async () => {
            await two.cacheLedger.completeMutation(held);
            const revision = await two.cacheLedger.dataRevision();
            const fence = await two.cacheLedger.beginMutation("workflow", OWNER);
            return { fence, revision };
          })();
          await sleep(300);
        });
        const after = await advanced!;
        assert.equal(deleted, 5, "three completions: six rows, all but the newest");
        assert.equal(await one.cacheLedger.dataRevision(), after.revision, "newest row kept");
        assert.deepEqual(
          (await one.cacheLedger.listIncomplete()).map((m) => m.mutationId),
          [after.fence.mutationId],
        );
        // And a prune after it all leaves the newest row again.
        await one.cacheLedger.prune();
        assert.deepEqual(await completedRowIds(one, "workflow"), [after.revision]);
        assert.equal((await one.cacheLedger.readState("data")).fenced, true);
      }),
    );

    void it("prunes on two handles racing completions on both keep the invariants", opts, () =>
      withDatabases(b, async (one, two) => {
        const ledgers = [one.cacheLedger, two.cacheLedger];
        const open = await ledgers[0]!.beginMutation("workflow", OWNER);
        let last = 0;
        for (let round = 0; round < 10; round++) {
          await Promise.all(
            ledgers.flatMap((l) => [
              l.prune(),
              l.beginMutation("workflow", OWNER).then((f) => l.completeMutation(f)),
              l.prune(),
            ]),
          );
          const revision = await ledgers[round % 2]!.dataRevision();
          assert.ok(revision > last, `revision ${revision} after ${last}`);
          last = revision;
          assert.ok((await completedRowIds(one, "workflow")).includes(revision));
          assert.equal(await ledgers[1]!.hasIncomplete("workflow"), true);
        }
        assert.deepEqual(
          (await two.cacheLedger.listIncomplete()).map((m) => m.mutationId),
          [open.mutationId],
        );
      }),
    );

    void it(
      "completeOrphan completes once, then does nothing; an unknown id is NotFound",
      opts,
      () =>
        withLedger(b, async (ledger) => {
          const fence = await ledger.beginMutation("workflow", "gone-host/123/boot");
          const before = await ledger.dataRevision();
          assert.deepEqual(await ledger.completeOrphan(fence.mutationId), { completed: true });
          const after = await ledger.dataRevision();
          assert.ok(after > before, `revision ${after} after ${before}`);
          assert.equal(await ledger.hasIncomplete("workflow"), false);
          assert.deepEqual(await ledger.completeOrphan(fence.mutationId), { completed: false });
          assert.equal(await ledger.dataRevision(), after, "a second completion changes nothing");
          await assert.rejects(ledger.completeOrphan("no-such-mutation"), (e) => {
            assert.equal(codeOf(e), "NotFound");
            return true;
          });
          // The writer coming back after the operator still raises the revision.
          await ledger.completeMutation(fence);
          const last = await ledger.dataRevision();
          assert.ok(last > after, `revision ${last} after ${after}`);
        }),
    );

    void it("listOwnedFences gives each incomplete fence its owner's silence", opts, () =>
      withDatabases(b, async (db, _two, url) => {
        const ledger = db.cacheLedger;
        const past = pastLedger(db, url, 60_000);
        assert.deepEqual(await ledger.listOwnedFences(), []);
        await ledger.beat("live/1/a");
        await past.beat("quiet/2/b");
        const never = await ledger.beginMutation("workflow", "never/3/c");
        const live = await ledger.beginMutation("routes", "live/1/a");
        const quiet = await ledger.beginMutation("workflow", "quiet/2/b");
        await ledger.completeMutation(await ledger.beginMutation("workflow", "live/1/a"));
        const listed = await ledger.listOwnedFences();
        assert.deepEqual(
          listed.map((f) => [f.mutationId, f.scope, f.owner]),
          [
            [never.mutationId, "workflow", "never/3/c"],
            [live.mutationId, "routes", "live/1/a"],
            [quiet.mutationId, "workflow", "quiet/2/b"],
          ],
          "the incomplete fences, oldest first, with their owners",
        );
        assert.deepEqual(
          listed.map((f) => f.id),
          (await ledger.listIncomplete()).map((f) => f.id),
        );
        const [n, l, q] = listed;
        assert.equal(n?.ownerSilentMs, null, "an owner that never beat");
        assert.ok(l !== undefined && l.ownerSilentMs !== null && l.ownerSilentMs < 30_000, "live");
        assert.ok(
          q !== undefined && q.ownerSilentMs !== null && q.ownerSilentMs >= 59_000,
          "quiet",
        );
        assert.ok(q.ageMs < 30_000, "the fence itself is young");
        // A beat now makes the quiet owner live again: one row per owner, updated.
        await ledger.beat("quiet/2/b");
        const again = (await ledger.listOwnedFences()).find((f) => f.owner === "quiet/2/b");
        const silent = again?.ownerSilentMs;
        assert.ok(typeof silent === "number" && silent < 30_000, `beat again: ${silent}`);
        assert.deepEqual(await ownerRows(db), ["live/1/a", "quiet/2/b"]);
      }),
    );

    void it("forgetOwners deletes silent owners once they own no fence", opts, () =>
      withDatabases(b, async (db, _two, url) => {
        const ledger = db.cacheLedger;
        const past = pastLedger(db, url, 60_000);
        await past.beat("gone-free/1/a");
        await past.beat("gone-fenced/2/b");
        await ledger.beat("live/3/c");
        const fence = await ledger.beginMutation("workflow", "gone-fenced/2/b");
        const other = await ledger.beginMutation("routes", "live/3/c");
        await ledger.completeMutation(await ledger.beginMutation("workflow", "gone-free/1/a"));
        assert.equal(await ledger.forgetOwners(30_000), 1, "only the silent owner without fences");
        assert.deepEqual(await ownerRows(db), ["gone-fenced/2/b", "live/3/c"]);
        assert.equal(await ledger.forgetOwners(120_000), 0, "none silent that long");
        await ledger.completeOrphan(fence.mutationId);
        assert.equal(await ledger.forgetOwners(30_000), 1, "its fence is gone");
        assert.deepEqual(await ownerRows(db), ["live/3/c"]);
        assert.equal(
          await ledger.forgetOwners(0),
          0,
          "an owner with a fence stays, however silent",
        );
        await ledger.completeMutation(other);
        await sleep(5);
        assert.equal(await ledger.forgetOwners(0), 1);
        assert.deepEqual(await ownerRows(db), []);
      }),
    );

    void it("random interleavings of begin, complete and prune on two handles", opts, () =>
      withDatabases(b, async (one, two) => {
        const handles = [one.cacheLedger, two.cacheLedger] as const;
        const op = fc.oneof(
          fc.record({
            kind: fc.constant("begin" as const),
            scope: fc.constantFrom(...CACHE_SCOPES),
          }),
          fc.record({ kind: fc.constant("complete" as const), pick: fc.nat() }),
          fc.record({ kind: fc.constant("prune" as const) }),
        );
        const step = fc.tuple(op, op);
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
            const open: MutationFence[] = [];
            const last = {
              workflow: await one.cacheLedger.revision("workflow"),
              routes: await one.cacheLedger.revision("routes"),
            };
            for (const ops of steps) {
              const completing = new Set<CacheScope>();
              const runs = ops.map((o, h) => {
                const ledger = handles[h]!;
                if (o.kind === "begin") {
                  return ledger.beginMutation(o.scope, OWNER).then((f) => void open.push(f));
                }
                if (o.kind === "prune") return ledger.prune();
                if (open.length === 0) return Promise.resolve();
                const [fence] = open.splice(o.pick % open.length, 1);
                completing.add(fence!.scope);
                return ledger.completeMutation(fence!);
              });
              await Promise.all(runs);
              for (const scope of CACHE_SCOPES) {
                const revision = await one.cacheLedger.revision(scope);
                if (completing.has(scope)) assert.ok(revision > last[scope], `${scope} rose`);
                else assert.ok(revision >= last[scope], `${scope} never goes back`);
                last[scope] = revision;
                assert.equal(
                  await two.cacheLedger.hasIncomplete(scope),
                  open.some((f) => f.scope === scope),
                );
              }
              assert.equal(
                await two.cacheLedger.routesRevision(),
                Math.max(last.workflow, last.routes),
              );
              const listed = (await one.cacheLedger.listIncomplete()).map((m) => m.id).sort();
              assert.deepEqual(listed, open.map((f) => f.id).sort(), "no incomplete row lost");
            }
            for (const f of open) await one.cacheLedger.completeMutation(f);
          }),
          { numRuns: 15, seed: 20261201 },
        );
      }),
    );
  });
}
