/**
 * One process per SQLite file. The group commit (group-commit.ts) and the
 * in-process coordination (a local start handed to the local worker, wake-ups
 * by notify()) assume that every writer of the file is in this process; a
 * second node on the same file would run, but slower and with runs waiting
 * for polls. So a second process refuses to open the file, naming the one
 * that has it.
 *
 * The lock is SQLite's own file lock (an fcntl lock) on a side database
 * `<db>.lock`: this process keeps a write transaction open on it (BEGIN
 * IMMEDIATE, nothing written), which another process's BEGIN IMMEDIATE
 * cannot get. The kernel drops the lock when the process ends, however it
 * ends (kill -9 too), so there is no stale lock to detect and no pid that
 * could have been reused by another program: the pid in the file is only for
 * the message. Like SQLite's own locking, it needs a file system with working
 * POSIX locks (not some network file systems). The file is never deleted:
 * deleting a lock file races with a process about to lock it.
 *
 * Per process, the lock is counted: opening the same file again in this
 * process (tests, tools reading next to a server) shares it, and the last
 * close releases it.
 */
import { mkdirSync, realpathSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { sqliteDriver } from "../../../drivers.ts";
import { taskflowError } from "../../../../domain/errors.ts";

export interface ProcessLock {
  /** Gives up this opener's share; the last one releases the file. Safe to call twice. */
  release(): void;
}

interface Held {
  db: Database.Database;
  users: number;
}

/** Lock file → the connection that holds it, per process. */
const held = new Map<string, Held>();

/** While the holder writes its pid, a process reading it waits this long (never more). */
const WRITE_WAIT_MS = 2_000;

/** Takes (or shares) this process's lock of the SQLite file at `path`; throws naming the holder. */
export function lockSqliteFile(path: string, target: string): ProcessLock {
  // In-memory and temporary databases belong to one connection: nothing to share.
  if (path === ":memory:" || path === "") return { release: () => undefined };
  const lockPath = lockPathOf(path);
  let entry = held.get(lockPath);
  if (entry === undefined) {
    entry = { db: acquire(lockPath, target), users: 0 };
    held.set(lockPath, entry);
  }
  entry.users++;
  const mine = entry;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (--mine.users > 0) return;
      held.delete(lockPath);
      mine.db.close(); // rolls the open transaction back: the lock is free
    },
  };
}

/** `<dir>/<name>.lock` with the directory's symlinks resolved, so every spelling of a path meets. */
function lockPathOf(path: string): string {
  const dir = dirname(resolve(path));
  mkdirSync(dir, { recursive: true });
  return join(realpathSync(dir), `${basename(path)}.lock`);
}

function acquire(lockPath: string, target: string): Database.Database {
  let db: Database.Database;
  try {
    db = new (sqliteDriver())(lockPath, { timeout: 0 });
  } catch (e) {
    throw new Error(
      `DATABASE_URL ${target}: cannot open the lock file ${lockPath}: ${message(e)}`,
      {
        cause: e,
      },
    );
  }
  try {
    if (!hold(db)) throw refusal(lockPath, target);
    // Who holds it, for the message of the next process: committed, so it can read it…
    db.exec(
      "create table if not exists holder (id integer primary key check (id = 1), " +
        "pid integer not null, host text not null, since integer not null)",
    );
    db.prepare("insert or replace into holder (id, pid, host, since) values (1, ?, ?, ?)").run(
      process.pid,
      hostname(),
      Date.now(),
    );
    db.pragma(`busy_timeout = ${WRITE_WAIT_MS}`); // the commit waits for a reader of `holder`
    db.exec("commit");
    db.pragma("busy_timeout = 0");
    // …then held again. A process that got in between holds it now: this one refuses.
    if (!hold(db)) throw refusal(lockPath, target);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** BEGIN IMMEDIATE: true when this connection now holds the write lock, false when another does. */
function hold(db: Database.Database): boolean {
  try {
    db.exec("begin immediate");
    return true;
  } catch (e) {
    if ((e as { code?: unknown }).code === "SQLITE_BUSY") return false;
    throw e;
  }
}

interface Holder {
  pid: number;
  host: string;
  since: number;
}

function refusal(lockPath: string, target: string): Error {
  const h = holderOf(lockPath);
  const who =
    h === undefined || h.pid === process.pid
      ? "another process (starting just now)"
      : `another process (pid ${h.pid} on ${h.host}, since ${new Date(h.since).toISOString()})`;
  return taskflowError("DatabaseInUse", {
    detail:
      `DATABASE_URL ${target}: ${who} has this SQLite file open, and one process per SQLite ` +
      "file is the rule (its writes and its workers are coordinated in-process). Stop that " +
      "process first, or point DATABASE_URL at another file; to run several nodes, use " +
      `PostgreSQL or MariaDB (docs/deployment.md). Lock: ${lockPath}`,
  });
}

/** The holder's record, or undefined when it cannot be read (it is being written). */
function holderOf(lockPath: string): Holder | undefined {
  try {
    const r = new (sqliteDriver())(lockPath, { readonly: true, timeout: WRITE_WAIT_MS });
    try {
      return r.prepare("select pid, host, since from holder where id = 1").get() as
        Holder | undefined;
    } finally {
      r.close();
    }
  } catch {
    return undefined;
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
