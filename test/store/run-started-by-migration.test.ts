/**
 * Migration 004 on a database that already holds runs: each run learns its
 * starter from its root instance (createRun always wrote it there), so old
 * runs filter by startedBy like new ones; a run without a root instance keeps
 * null. Every backend.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Kysely, Migrator, sql } from "kysely";
import { dialectFor, openDatabase } from "../../src/adapters/store/open-database.ts";
import { migrationProvider } from "../../src/adapters/store/migrations/migration-provider.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";

const T = "tenant-a";
const NOW = 1_700_000_000_000;

/** The rows createRun wrote before 004: a root instance owned by the starter, and its run. */
async function oldRun(db: Kysely<unknown>, id: string, root: string | null, starter: string) {
  if (root !== null) {
    await sql`insert into instances (tenant_id, id, kind, definition_id, definition_key,
        parent_instance_id, root_instance_id, status, process_state, vars, started_by, created_at)
      values (${T}, ${root}, 'process', 'def-1', 'wf', null, ${root}, 'running', 'open',
        '{}', ${starter}, ${NOW})`.execute(db);
  }
  await sql`insert into runs (tenant_id, id, workflow, status, input, root_instance_id,
      parent_run_id, created_at, updated_at, wake_at, cancel_requested, generation, first_seq)
    values (${T}, ${id}, 'wf', 'pending', 'null', ${root}, null, ${NOW}, ${NOW}, ${NOW}, 0, 0, 0)`.execute(
    db,
  );
}

for (const b of backends) {
  void describe(`migration 004 on existing runs: ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    void it("fills started_by from the root instance; null without one", options, async () => {
      const fresh = await createTestDatabase(b, { empty: true });
      const parts = dialectFor(fresh.url);
      const db = new Kysely<unknown>({ dialect: parts.kysely });
      try {
        const migrator = new Migrator({ db, provider: migrationProvider(parts) });
        const { error } = await migrator.migrateTo("003_served_workflows");
        assert.equal(error, undefined);
        await oldRun(db, "r-alice", "0193a1b2-6f00-7c22-8f10-000000000001", "alice");
        await oldRun(db, "r-bob", "0193a1b2-6f00-7c22-8f10-000000000002", "bob");
        await oldRun(db, "r-orphan", null, "nobody");
      } finally {
        await db.destroy();
      }
      const database = openDatabase(fresh.url);
      try {
        assert.ok((await database.migrate()).includes("004_run_filters"));
        assert.equal((await database.runs.getRun(T, "r-alice"))!.startedBy, "alice");
        assert.equal((await database.runs.getRun(T, "r-orphan"))!.startedBy, null);
        const bobs = await database.runs.listRuns({ tenantId: T, startedBy: "bob", limit: 10 });
        assert.deepEqual(
          bobs.map((r) => r.id),
          ["r-bob"],
        );
      } finally {
        await database.close();
        await fresh.drop();
      }
    });
  });
}
