/**
 * The lock Kysely's Migrator holds while it migrates a MariaDB database.
 * Kysely's own MysqlAdapter takes GET_LOCK under one fixed name, and GET_LOCK
 * names are server-wide: every database on the server would wait for any
 * other database's migrations (two deployments on one server, or test files
 * running side by side, each on its own database). Named after the database
 * instead, as the coordination's lock names are; still session-scoped, so a
 * killed migrator's lock ends with its connection.
 */
import { MysqlAdapter, sql, type Kysely } from "kysely";

/** As Kysely's: a migration that waits longer than an hour is stuck. */
const LOCK_TIMEOUT_SECONDS = 60 * 60;

/**
 * At most 64 characters, as GET_LOCK requires: a database name may be 64 on
 * its own, so it goes in as its SHA-1 (40 hex digits).
 */
const LOCK_NAME = sql<string>`concat('taskflow-migrate:', sha1(coalesce(database(), '')))`;

export class PerDatabaseMigrationLockAdapter extends MysqlAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    const { rows } = await sql<{
      v: number | null;
    }>`select get_lock(${LOCK_NAME}, ${LOCK_TIMEOUT_SECONDS}) as v`.execute(db);
    if (Number(rows[0]?.v) !== 1) {
      throw new Error(`the migration lock of this database was not free within an hour`);
    }
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select release_lock(${LOCK_NAME})`.execute(db);
  }
}
