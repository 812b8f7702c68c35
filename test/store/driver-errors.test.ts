/**
 * How each dialect classifies its driver's errors into the shared kinds
 * (unavailable, duplicate key, deadlock, serialization, other); which driver
 * errors are "the database is unavailable" (503, retry later) and which stay
 * what they are, per backend; and, on a real SQLite file, that a
 * write lock held by another process past busy_timeout surfaces as the
 * domain's UnavailableError and the store works again once it is released.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { createStore } from "../../src/adapters/store/create-store.ts";
import {
  classifyMysqlError,
  isMysqlUnavailable,
} from "../../src/adapters/store/dialects/mysql/driver-errors.ts";
import {
  classifyPgError,
  isPgUnavailable,
} from "../../src/adapters/store/dialects/postgres/driver-errors.ts";
import {
  classifySqliteError,
  isSqliteUnavailable,
} from "../../src/adapters/store/dialects/sqlite/driver-errors.ts";
import { isUnavailable } from "../../src/domain/unavailable.ts";

const err = (fields: Record<string, unknown>, message = "x") =>
  Object.assign(new Error(message), fields);

test("PostgreSQL: lost, refused and shutting-down connections; not constraints or deadlocks", () => {
  const yes = [
    err({ code: "ECONNREFUSED" }),
    err({ code: "ECONNRESET" }),
    err({ code: "57P01" }, "terminating connection due to administrator command"),
    err({ code: "57P03" }),
    err({ code: "08006" }),
    err({ code: "53300" }),
    new Error("Connection terminated unexpectedly"),
    new Error("Connection terminated due to connection timeout"),
    new Error("timeout exceeded when trying to connect"),
    new Error("Client has encountered a connection error and is not queryable"),
    new AggregateError([err({ code: "ECONNREFUSED" }), err({ code: "ECONNREFUSED" })], ""),
  ];
  const no = [
    err({ code: "23505" }),
    err({ code: "40P01" }),
    err({ code: "22P02" }),
    new Error("boom"),
    new AggregateError([err({ code: "ECONNREFUSED" }), new Error("boom")], ""),
    undefined,
    "ECONNREFUSED",
  ];
  for (const e of yes) assert.equal(isPgUnavailable(e), true, String(e));
  for (const e of no) assert.equal(isPgUnavailable(e), false, String(e));
});

test("MariaDB: fatal errors, lost connections, too many connections, killed; not SQL errors", () => {
  const yes = [
    err({ code: "PROTOCOL_CONNECTION_LOST", fatal: true }),
    err({ fatal: true }, "Can't add new command when connection is in closed state"),
    err({ code: "ECONNREFUSED" }),
    err({ code: "ER_CON_COUNT_ERROR", errno: 1040 }),
    err({ code: "ER_CONNECTION_KILLED", errno: 1927 }),
    err({ errno: 1053 }),
  ];
  const no = [
    err({ code: "ER_DUP_ENTRY", errno: 1062 }),
    err({ code: "ER_LOCK_DEADLOCK", errno: 1213 }),
    err({ code: "ER_PARSE_ERROR", errno: 1064, fatal: false }),
  ];
  for (const e of yes) assert.equal(isMysqlUnavailable(e), true, String(e));
  for (const e of no) assert.equal(isMysqlUnavailable(e), false, String(e));
});

test("SQLite: busy past the timeout, disk full, I/O errors, read-only; not corruption or constraints", () => {
  for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_FULL", "SQLITE_IOERR_WRITE"]) {
    assert.equal(isSqliteUnavailable(err({ code })), true, code);
  }
  for (const code of [
    "SQLITE_CORRUPT",
    "SQLITE_LOCKED",
    "SQLITE_CONSTRAINT_UNIQUE",
    "SQLITE_ERROR",
  ]) {
    assert.equal(isSqliteUnavailable(err({ code })), false, code);
  }
});

test("each dialect sorts duplicate keys, deadlocks and serialization failures into the shared kinds", () => {
  const cases: [string, (e: unknown) => string, Record<string, unknown>, string][] = [
    ["pg", classifyPgError, { code: "23505" }, "duplicate-key"],
    ["pg", classifyPgError, { code: "40P01" }, "deadlock"],
    ["pg", classifyPgError, { code: "40001" }, "serialization"],
    ["pg", classifyPgError, { code: "57P01" }, "unavailable"],
    ["pg", classifyPgError, { code: "22P02" }, "other"],
    ["mysql", classifyMysqlError, { code: "ER_DUP_ENTRY", errno: 1062 }, "duplicate-key"],
    ["mysql", classifyMysqlError, { errno: 1062 }, "duplicate-key"],
    ["mysql", classifyMysqlError, { code: "ER_LOCK_DEADLOCK", errno: 1213 }, "deadlock"],
    ["mysql", classifyMysqlError, { code: "ER_CHECKREAD", errno: 1020 }, "serialization"],
    ["mysql", classifyMysqlError, { code: "PROTOCOL_CONNECTION_LOST", fatal: true }, "unavailable"],
    ["mysql", classifyMysqlError, { code: "ER_PARSE_ERROR", errno: 1064 }, "other"],
    ["sqlite", classifySqliteError, { code: "SQLITE_CONSTRAINT_PRIMARYKEY" }, "duplicate-key"],
    ["sqlite", classifySqliteError, { code: "SQLITE_CONSTRAINT_UNIQUE" }, "duplicate-key"],
    ["sqlite", classifySqliteError, { code: "SQLITE_CONSTRAINT_NOTNULL" }, "other"],
    ["sqlite", classifySqliteError, { code: "SQLITE_BUSY" }, "unavailable"],
  ];
  for (const [backend, classify, fields, kind] of cases) {
    assert.equal(classify(err(fields)), kind, `${backend} ${JSON.stringify(fields)}`);
  }
  assert.equal(classifyPgError(undefined), "other");
});

test("SQLite: another process's write lock past busy_timeout is UnavailableError, then the store works again", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tf-busy-"));
  const path = join(dir, "busy.db");
  const store = createStore(`sqlite:${path}`);
  const other = new Database(path);
  try {
    await store.migrate();
    const def = (key: string) => ({ id: key, tenantId: "t", key, name: key, createdAt: 1 });
    other.exec("BEGIN IMMEDIATE");
    // Blocks this process for busy_timeout (5 s): better-sqlite3 waits synchronously.
    const failed = await store
      .transaction((tx) => tx.ensureDefinition(def("a")))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(isUnavailable(failed), `got ${String(failed)}`);
    other.exec("ROLLBACK");
    const d = await store.transaction((tx) => tx.ensureDefinition(def("b")));
    assert.equal(d.key, "b");
    await store.ping();
  } finally {
    other.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
