/**
 * openDatabase's onQuery hook: every statement the stores send is reported
 * once, with its text, failed ones too — what the cache benchmark divides by
 * its lookups, so a missed or doubled report would misstate SQL per lookup.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";

for (const backend of backends) {
  void describe(`openDatabase onQuery: ${backend.name}`, await backendTestOptions(backend), () => {
    void it("reports each statement once, failed ones too", async () => {
      const created = await createTestDatabase(backend);
      const seen: string[] = [];
      const db = openDatabase(created.url, { onQuery: (sql) => seen.push(sql) });
      try {
        await db.migrate();
        seen.length = 0;
        await db.ping();
        assert.deepEqual(seen, ["select 1"]);

        seen.length = 0;
        assert.equal(await db.definitions.latestPublished("t1", "nothing"), undefined);
        await db.cacheLedger.readState("data");
        assert.equal(seen.length, 2, seen.join("\n"));
        assert.match(seen[1]!, /select/i);

        seen.length = 0;
        const failing = sql`select * from no_such_table_here`;
        await assert.rejects(failing.execute(db.coordinationContext.db));
        assert.deepEqual(seen, ["select * from no_such_table_here"]);
      } finally {
        await db.close().catch(() => undefined);
        await created.drop();
      }
    });
  });
}
