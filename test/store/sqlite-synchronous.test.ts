/**
 * WF_SQLITE_SYNCHRONOUS reaches the SQLite connection: the pragma the store's
 * connection runs with, read back through that connection.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { sql, type Kysely } from "kysely";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";

const dir = mkdtempSync(join(tmpdir(), "taskflow-synchronous-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** PRAGMA synchronous of the store's connection: 1 = NORMAL, 2 = FULL. */
async function synchronousOf(env: Record<string, string>): Promise<number> {
  const config = loadConfig({
    env: { NODE_ENV: "development", LOG_LEVEL: "silent", ...env },
    overrides: {
      databaseUrl: `sqlite:${join(dir, `${Object.keys(env).length}-${Date.now()}.db`)}`,
    },
  });
  const tf = await createTaskflow(config);
  try {
    // The store keeps its Kysely instance to itself; a test may look.
    const db = (tf.store as unknown as { db: Kysely<unknown> }).db;
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
    return rows[0]!.synchronous;
  } finally {
    await tf.close();
  }
}

void describe("SQLite synchronous", () => {
  void test("NORMAL by default", async () => {
    assert.equal(await synchronousOf({}), 1);
  });

  void test("FULL with WF_SQLITE_SYNCHRONOUS=full", async () => {
    assert.equal(await synchronousOf({ WF_SQLITE_SYNCHRONOUS: "full" }), 2);
  });
});
