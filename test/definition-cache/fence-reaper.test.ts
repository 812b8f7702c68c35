/**
 * The fence reaper on every backend (real databases, real time, real
 * concurrency): it completes the fences of owners that stopped beating — or
 * never beat — and moves the revision; it leaves a live owner's fence alone
 * until the fence is older than the max age, then completes that too; it
 * takes a fence's own creation as a sign of life; and two reapers running at
 * once (two nodes, a lock holder whose lease ran out beside the next one)
 * complete each fence exactly once; as a singleton job, one node reaps.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import type { Kysely } from "kysely";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { SqlCacheLedger } from "../../src/adapters/store/cache-ledger/sql-cache-ledger.ts";
import type { StoreSchema } from "../../src/adapters/store/db-schema.ts";
import { dialectFor, openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { startSingletonJobs } from "../../src/engine/coordination/singleton-jobs.ts";
import type { CacheLedger } from "../../src/engine/definition-cache/cache-ledger-port.ts";
import {
  fenceReaperJob,
  reapFences,
  type FenceReaperOptions,
  type ReapedFence,
} from "../../src/engine/definition-cache/fence-reaper.ts";
import { startOwnerHeartbeat } from "../../src/engine/definition-cache/owner-heartbeat.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";

interface Logged {
  fields: Record<string, unknown>;
  message: string;
}

/** Two handles on one fresh database (SQLite: one, as in the ledger contract). */
async function withDatabases(
  b: Backend,
  fn: (one: Database, two: Database, url: string) => Promise<void>,
) {
  const test = await createTestDatabase(b);
  const one = openDatabase(test.url, { poolSize: 4 });
  const two = b.name === "sqlite" ? one : openDatabase(test.url, { poolSize: 4 });
  try {
    await one.migrate();
    await fn(one, two, test.url);
  } finally {
    await one.close();
    if (two !== one) await two.close();
    await test.drop();
  }
}

/** The same database through a clock `behindMs` in the past: fences begun, beats made, long ago. */
function pastLedger(db: Database, url: string, behindMs: number): CacheLedger {
  const k = db.coordinationContext.db as Kysely<StoreSchema>;
  return new SqlCacheLedger(k, dialectFor(url), () => Date.now() - behindMs);
}

function reaper(ledger: CacheLedger, rule: { maxAgeMs: number; staleOwnerMs: number }) {
  const logged: Logged[] = [];
  const options: FenceReaperOptions = {
    ledger,
    ...rule,
    log: { warn: (fields, message) => void logged.push({ fields, message }) },
  };
  return { round: () => reapFences(options), logged };
}

async function ownerRows(db: Database): Promise<string[]> {
  const k = db.coordinationContext.db as Kysely<StoreSchema>;
  const rows = await k.selectFrom("cache_owners").select("owner").orderBy("owner").execute();
  return rows.map((r) => r.owner);
}

const ids = (reaped: readonly ReapedFence[]) => reaped.map((r) => r.fence.mutationId);

for (const b of backends) {
  void describe(`fence reaper on ${b.name}`, async () => {
    const opts = await backendTestOptions(b);

    void it(
      "completes fences of owners silent long ago or never heard of; the revision moves",
      opts,
      () =>
        withDatabases(b, async (db, _two, url) => {
          const ledger = db.cacheLedger;
          const past = pastLedger(db, url, 60_000);
          await past.beat("gone/1/a");
          const gone = await past.beginMutation("workflow", "gone/1/a");
          const never = await past.beginMutation("routes", "never/2/b");
          await ledger.beat("live/3/c");
          const live = await ledger.beginMutation("workflow", "live/3/c");
          const before = {
            data: await ledger.dataRevision(),
            routes: await ledger.revision("routes"),
          };
          // maxAge 0: never by age, so only the owners' silence can pick a fence.
          const r = reaper(ledger, { maxAgeMs: 0, staleOwnerMs: 6_000 });
          const reaped = await r.round();
          assert.deepEqual(ids(reaped), [gone.mutationId, never.mutationId]);
          assert.deepEqual(
            reaped.map((x) => x.reason),
            ["owner-gone", "owner-gone"],
          );
          assert.ok((await ledger.dataRevision()) > before.data, "workflow revision moved");
          assert.ok((await ledger.revision("routes")) > before.routes, "routes revision moved");
          assert.deepEqual(
            (await ledger.listIncomplete()).map((f) => f.mutationId),
            [live.mutationId],
            "the live owner's fence stays",
          );
          assert.deepEqual(
            r.logged.map((l) => [l.fields["mutationId"], l.fields["owner"], l.fields["reason"]]),
            [
              [gone.mutationId, "gone/1/a", "owner-gone"],
              [never.mutationId, "never/2/b", "owner-gone"],
            ],
          );
          const first = r.logged[0]!.fields;
          assert.equal(first["scope"], "workflow");
          assert.ok(Number(first["ageMs"]) >= 59_000, `age ${String(first["ageMs"])}`);
          assert.ok(Number(first["ownerSilentMs"]) >= 59_000, "silence");
          assert.equal(r.logged[1]!.fields["ownerSilentMs"], null, "never beat");
          assert.deepEqual(await ownerRows(db), ["live/3/c"], "the gone owner is forgotten");
          assert.deepEqual(await r.round(), [], "nothing left to reap");
          await ledger.completeMutation(live);
        }),
    );

    void it(
      "leaves a live owner's young fence alone; completes it once older than the max age",
      opts,
      () =>
        withDatabases(b, async (db, _two, url) => {
          const ledger = db.cacheLedger;
          const beatErrors: Error[] = [];
          const heartbeat = startOwnerHeartbeat({
            ledger,
            owner: "live/1/a",
            intervalMs: 50,
            onError: (e) => void beatErrors.push(e),
          });
          try {
            await sleep(100);
            const fence = await ledger.beginMutation("workflow", "live/1/a");
            // An owner that beat long ago but opened a fence just now was alive then.
            await pastLedger(db, url, 60_000).beat("resumed/2/b");
            const resumed = await ledger.beginMutation("workflow", "resumed/2/b");
            const revision = await ledger.dataRevision();
            const r = reaper(ledger, { maxAgeMs: 60_000, staleOwnerMs: 600 });
            // Rounds over twice the stale time: the beating owner's fence is never taken.
            const started = Date.now();
            while (Date.now() - started < 1_300) {
              const reaped = await r.round();
              assert.ok(!ids(reaped).includes(fence.mutationId), "a live owner's fence was reaped");
              if (Date.now() - started < 400) assert.deepEqual(reaped, [], "nothing young reaped");
              await sleep(100);
            }
            // The resumed owner never beat again: after the stale time, it counts as gone.
            assert.deepEqual(
              r.logged.map((l) => [l.fields["mutationId"], l.fields["reason"]]),
              [[resumed.mutationId, "owner-gone"]],
            );
            assert.ok((await ledger.dataRevision()) > revision);
            assert.equal((await ledger.readState("data")).fenced, true, "the live fence is open");
            const beforeAge = await ledger.dataRevision();
            // Older than the max age (here 1 s): completed although its owner beats.
            const aged = reaper(ledger, { maxAgeMs: 1_000, staleOwnerMs: 1_000 });
            const reaped = await aged.round();
            assert.deepEqual(ids(reaped), [fence.mutationId]);
            assert.equal(reaped[0]!.reason, "max-age");
            assert.equal(aged.logged[0]!.fields["reason"], "max-age");
            assert.ok(
              Number(aged.logged[0]!.fields["ownerSilentMs"]) < 1_000,
              "the owner was live",
            );
            assert.ok((await ledger.dataRevision()) > beforeAge, "the revision moved");
            assert.equal((await ledger.readState("data")).fenced, false);
            assert.ok(
              (await ownerRows(db)).includes("live/1/a"),
              "a live owner is never forgotten",
            );
            assert.deepEqual(beatErrors, []);
          } finally {
            await heartbeat.stop();
          }
        }),
    );

    void it(
      "an owner that stops beating loses its fence after the stale time, not before",
      opts,
      () =>
        withDatabases(b, async (db) => {
          const ledger = db.cacheLedger;
          const beatErrors: Error[] = [];
          const heartbeat = startOwnerHeartbeat({
            ledger,
            owner: "dies/1/a",
            intervalMs: 100,
            onError: (e) => void beatErrors.push(e),
          });
          await sleep(150);
          const fence = await ledger.beginMutation("workflow", "dies/1/a");
          const r = reaper(ledger, { maxAgeMs: 60_000, staleOwnerMs: 1_000 });
          await sleep(1_200);
          assert.deepEqual(await r.round(), [], "beating for longer than the stale time: kept");
          await heartbeat.stop();
          const stoppedAt = Date.now();
          let reaped: ReapedFence[] = [];
          while (reaped.length === 0 && Date.now() - stoppedAt < 5_000) {
            await sleep(50);
            reaped = await r.round();
          }
          assert.deepEqual(ids(reaped), [fence.mutationId], "reaped within 5 s of the last beat");
          const silent = reaped[0]!.fence.ownerSilentMs;
          assert.ok(silent !== null && silent >= 1_000, `silent ${String(silent)} ms`);
          assert.equal(await ledger.hasIncomplete("workflow"), false);
          assert.deepEqual(await ownerRows(db), [], "forgotten once its fence is gone");
          assert.deepEqual(beatErrors, []);
        }),
    );

    void it("two reapers at once complete each fence exactly once", opts, () =>
      withDatabases(b, async (one, two, url) => {
        const past = pastLedger(one, url, 60_000);
        const a = reaper(one.cacheLedger, { maxAgeMs: 0, staleOwnerMs: 6_000 });
        const c = reaper(two.cacheLedger, { maxAgeMs: 0, staleOwnerMs: 6_000 });
        for (let round = 0; round < 4; round++) {
          const fences = [];
          for (let i = 0; i < 8; i++) {
            const scope = i % 2 === 0 ? "workflow" : "routes";
            fences.push(await past.beginMutation(scope, `dead/${round}/${i}`));
          }
          const before = await one.cacheLedger.routesRevision();
          const [fromA, fromC] = await Promise.all([a.round(), c.round()]);
          const all = [...ids(fromA), ...ids(fromC)].sort();
          assert.deepEqual(all, fences.map((f) => f.mutationId).sort(), "each fence once");
          assert.ok((await two.cacheLedger.routesRevision()) > before, "the revision moved");
          assert.deepEqual(await one.cacheLedger.listIncomplete(), []);
        }
        assert.equal(a.logged.length + c.logged.length, 32, "one warning per completion");
      }),
    );
    void it(
      "as a singleton job on two nodes, one node (the lock holder) reaps them all",
      opts,
      () =>
        withDatabases(b, async (one, two, url) => {
          const past = pastLedger(one, url, 60_000);
          const keyPrefix = `reaper-${Math.random().toString(16).slice(2)}:`;
          const nodes = [one, two].map((db, i) => {
            const coordination = openCoordination({
              kind: "sql",
              keyPrefix,
              sql: db.coordinationContext,
            });
            const logged: string[] = [];
            const errors: Error[] = [];
            const job = fenceReaperJob({
              ledger: db.cacheLedger,
              maxAgeMs: 0,
              staleOwnerMs: 6_000,
              intervalMs: 100,
              log: { warn: (fields) => void logged.push(String(fields["mutationId"])) },
            });
            const jobs = startSingletonJobs({
              locks: coordination.locks,
              jobs: [job],
              onError: (_job, e) => void errors.push(e),
              errorIntervalMs: 0,
            });
            return { name: `node-${i}`, coordination, jobs, logged, errors };
          });
          try {
            const fences: string[] = [];
            for (let batch = 0; batch < 3; batch++) {
              for (let i = 0; i < 4; i++) {
                fences.push(
                  (await past.beginMutation("workflow", `dead/${batch}/${i}`)).mutationId,
                );
              }
              const started = Date.now();
              while (
                (await one.cacheLedger.hasIncomplete("workflow")) &&
                Date.now() - started < 10_000
              ) {
                await sleep(50);
              }
              assert.equal(
                await one.cacheLedger.hasIncomplete("workflow"),
                false,
                "reaped within 10 s",
              );
            }
            // A round's log line follows its commit, which another connection may see first.
            for (const n of nodes) await n.jobs.stop();
            const byNode = nodes.map((n) => n.logged.length);
            assert.deepEqual([...nodes[0]!.logged, ...nodes[1]!.logged].sort(), [...fences].sort());
            assert.ok(byNode.includes(0), `one node reaped everything: ${byNode.join(" / ")}`);
            assert.deepEqual(
              nodes.flatMap((n) => n.errors),
              [],
            );
          } finally {
            for (const n of nodes) {
              await n.jobs.stop();
              await n.coordination.close();
            }
          }
        }),
    );
  });
}
