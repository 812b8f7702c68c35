/**
 * MariaDB's migration lock is per database: a lock held on one database's
 * name (or under Kysely's own fixed, server-wide name) does not hold up
 * migrating another database, while a lock on the database's own name does
 * hold up migrating that database until it is released.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createConnection } from "mysql2/promise";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";

/** The name Kysely's own MysqlAdapter locks for every database on the server. */
const KYSELY_SERVER_WIDE_LOCK = "ea586330-2c93-47c8-908d-981d9d270f9d";
/** Far longer than migrating an empty database takes, far shorter than a lock wait (1 h). */
const MIGRATE_WITHIN_MS = 30_000;

/**
 * Holds GET_LOCK(name) on a connection of its own (to `url`'s database) until
 * released; "own" is the name TaskFlow's migrations lock for that database.
 */
async function holdLock(url: string, name: string) {
  const conn = await createConnection({ uri: url });
  const [rows] = await conn.query(
    name === "own"
      ? "select get_lock(concat('taskflow-migrate:', sha1(database())), 0) as v"
      : "select get_lock(?, 0) as v",
    [name],
  );
  assert.equal((rows as { v: number }[])[0]?.v, 1, `took the lock ${name}`);
  return { release: () => conn.end() };
}

function migrateWithin(url: string, ms: number): Promise<"migrated" | "waiting"> {
  const db = openDatabase(url);
  const migrated = db.migrate().then(() => "migrated" as const);
  const timeout = sleep(ms).then(() => "waiting" as const);
  return Promise.race([migrated, timeout]).finally(() => migrated.finally(() => db.close()));
}

void describe("MariaDB migration lock", await backendTestOptions({ name: "mysql" }), () => {
  void it("Kysely's server-wide lock held elsewhere does not hold up a migration", async () => {
    const database = await createTestDatabase({ name: "mysql" }, { empty: true });
    const held = await holdLock(database.url, KYSELY_SERVER_WIDE_LOCK);
    try {
      assert.equal(await migrateWithin(database.url, MIGRATE_WITHIN_MS), "migrated");
    } finally {
      await held.release();
      await database.drop();
    }
  });

  void it("another database's lock does not hold up a migration", async () => {
    const [one, other] = [
      await createTestDatabase({ name: "mysql" }, { empty: true }),
      await createTestDatabase({ name: "mysql" }, { empty: true }),
    ];
    const held = await holdLock(other.url, "own");
    try {
      assert.equal(await migrateWithin(one.url, MIGRATE_WITHIN_MS), "migrated");
    } finally {
      await held.release();
      await one.drop();
      await other.drop();
    }
  });

  void it("the database's own lock holds up its migration until released", async () => {
    const database = await createTestDatabase({ name: "mysql" }, { empty: true });
    const held = await holdLock(database.url, "own");
    const db = openDatabase(database.url);
    try {
      const migrating = db.migrate();
      migrating.catch(() => undefined);
      await waitForUserLockWaiter(database.url);
      await held.release();
      const outcome = await Promise.race([
        migrating.then(() => "migrated"),
        sleep(MIGRATE_WITHIN_MS).then(() => "waiting"),
      ]);
      assert.equal(outcome, "migrated", "the migration went on once the lock was free");
    } finally {
      await held.release().catch(() => undefined);
      await db.close();
      await database.drop();
    }
  });
});

/** Resolves once a session of `url`'s database waits in GET_LOCK (up to 10 s), else fails. */
async function waitForUserLockWaiter(url: string): Promise<void> {
  const watcher = await createConnection({ uri: url });
  try {
    for (let i = 0; i < 200; i++) {
      const [rows] = await watcher.query(
        "select count(*) as n from information_schema.processlist where db = database() and state = 'User lock'",
      );
      if (Number((rows as { n: number }[])[0]?.n ?? 0) > 0) return;
      await sleep(50);
    }
    assert.fail("the migration never waited on its database's lock");
  } finally {
    await watcher.end();
  }
}
