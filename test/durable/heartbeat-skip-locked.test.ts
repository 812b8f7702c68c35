/**
 * PostgreSQL only (it is the one backend whose finishes lock many runs in one
 * statement, see write-batcher.ts): the heartbeat does not wait for a run row
 * that another transaction holds — it skips it, still reports the run as held,
 * and extends its lease on a later round.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import pg from "pg";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";

const PG = { name: "postgres" } as const;
const T = "t1";
const NOW = 1_700_000_000_000;

it(
  "the heartbeat skips a locked run row instead of waiting, and still reports it held",
  await backendTestOptions(PG),
  async () => {
    const db = await createTestDatabase(PG);
    const database = openDatabase(db.url);
    const holder = new pg.Client({ connectionString: db.url });
    try {
      await database.migrate();
      const runs = database.runs;
      for (const id of ["a", "b"]) {
        await runs.createRun({
          tenantId: T,
          id,
          workflow: "wf",
          input: null,
          parentRunId: null,
          startedBy: "alice",
          now: NOW,
        });
      }
      assert.equal((await runs.claimRuns("w1", NOW, NOW + 5_000, 10)).length, 2);

      await holder.connect();
      await holder.query("begin");
      await holder.query("select 1 from runs where tenant_id = $1 and id = 'a' for update", [T]);
      const beat = runs.heartbeat("w1", NOW + 1_000, NOW + 6_000);
      const late = new Promise<"waited">((r) => setTimeout(() => r("waited"), 2_000).unref());
      const held = await Promise.race([beat, late]);
      assert.notEqual(held, "waited", "the heartbeat waited for the locked row");
      assert.deepEqual(
        (held as { id: string }[]).map((h) => h.id).sort(),
        ["a", "b"],
        "the locked run is still reported as held",
      );
      const leaseOf = async (id: string) => (await runs.getRun(T, id))!.leaseUntil;
      assert.equal(await leaseOf("b"), NOW + 6_000);
      assert.equal(await leaseOf("a"), NOW + 5_000, "the locked run waits for the next round");

      await holder.query("rollback");
      await runs.heartbeat("w1", NOW + 2_000, NOW + 7_000);
      assert.equal(await leaseOf("a"), NOW + 7_000);
    } finally {
      await holder.end().catch(() => undefined);
      await database.close();
      await db.drop();
    }
  },
);
