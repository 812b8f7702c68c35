/**
 * Locks on the store's own database, by the session lock its dialect offers
 * (StoreDialect.sessionLocks):
 *
 * - advisory (PostgreSQL): `pg_try_advisory_lock(bigint)` on a dedicated connection; the
 *   key is 64 bits of SHA-256 over (key prefix, tenant, name).
 * - get-lock (MariaDB): `GET_LOCK(name, 0)` on a dedicated connection. Lock names are
 *   server-wide (not per database) and at most 64 characters, so the name is
 *   SHA-256 hex over (database, key prefix, tenant, name), cut to fit.
 * - none (SQLite): one process per database file, so exclusion in this process is
 *   the whole lock: every coordination of this process on the same file shares
 *   one table of held keys.
 *
 * A process killed with kill -9 loses its PostgreSQL and MariaDB locks at once
 * (the server ends its session); a dropped connection aborts every handle it
 * held (sql-lock-sessions.ts). The session never expires a lock by itself, so
 * the lease is kept here: a holder that stops extending loses the lock when
 * its lease passes, and the session lock is given back.
 *
 * Fencing tokens live in coordination_lock_tokens (migration 005): every grant
 * adds one to the (tenant, name) row in one statement, after the session lock
 * is taken, so tokens grow across nodes and restarts.
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { sql } from "kysely";
import { UnavailableError } from "../../../domain/unavailable.ts";
import type { AcquireOptions, LockHandle, Locks } from "../../../engine/coordination/locks-port.ts";
import { sqlitePathOf } from "../../store/database-url.ts";
import type { SqlContext } from "../coordination-context.ts";
import { checkAcquire, checkIsCurrent, LeasedLock, tryUntil } from "../lock-handle.ts";
import {
  mysqlSession,
  pgSession,
  processSession,
  type LockEpoch,
  type LockSession,
} from "./sql-lock-sessions.ts";

/** MariaDB's limit on GET_LOCK names. */
const MYSQL_LOCK_NAME_LENGTH = 64;
const MYSQL_LOCK_NAME_PREFIX = "tflock:";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** The prefix's length first, so no (prefix, name) pair reads as another. */
const scoped = (keyPrefix: string, rest: string) => `${keyPrefix.length}:${keyPrefix}${rest}`;

/**
 * SQLite: the keys held by this process, per database file. Two coordinations
 * on one file (two "nodes" in a test) exclude each other through it.
 */
const sqliteHeld = new Map<string, Set<string>>();

function heldSetFor(ctx: SqlContext): { held: Set<string>; done: () => void } {
  // A session lock excludes the other processes and nodes; this set only this coordination's own.
  if (ctx.dialect.sessionLocks !== null) return { held: new Set(), done: () => undefined };
  const path = sqlitePathOf(ctx.databaseUrl);
  // Each :memory: database is its own: nothing to share.
  if (path === ":memory:") return { held: new Set(), done: () => undefined };
  const key = resolve(path);
  let held = sqliteHeld.get(key);
  if (held === undefined) {
    held = new Set();
    sqliteHeld.set(key, held);
  }
  const shared = held;
  return {
    held: shared,
    done: () => {
      if (shared.size === 0 && sqliteHeld.get(key) === shared) sqliteHeld.delete(key);
    },
  };
}

/** The database name in a server URL: GET_LOCK names are server-wide. */
function databaseOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  } catch {
    return "";
  }
}

function sessionFor(ctx: SqlContext): LockSession {
  switch (ctx.dialect.sessionLocks) {
    case "advisory":
      return pgSession(ctx.databaseUrl);
    case "get-lock":
      return mysqlSession(ctx.databaseUrl);
    case null:
      return processSession();
  }
}

export function sqlLocks(ctx: SqlContext): Locks {
  const locking = ctx.dialect.sessionLocks;
  const session = sessionFor(ctx);
  const { held, done } = heldSetFor(ctx);
  const mine = new Set<LeasedLock>();
  const database = locking === "get-lock" ? databaseOf(ctx.databaseUrl) : "";
  let closed = false;

  /** The token row's key: 64 hex characters for any name. */
  const nameKeyOf = (name: string) => sha256(scoped(ctx.keyPrefix, name)).toString("hex");

  /** The session lock's key (and this process's key for it). */
  function sessionKeyOf(tenant: string, name: string): string {
    // Tenants are [A-Za-z0-9._-], so "tenant/name" is unambiguous.
    const digest = sha256(scoped(ctx.keyPrefix, `${tenant}/${name}`));
    switch (locking) {
      case "advisory":
        return digest.readBigInt64BE(0).toString();
      case "get-lock": {
        const hex = sha256(`${database.length}:${database}${digest.toString("hex")}`);
        return (MYSQL_LOCK_NAME_PREFIX + hex.toString("hex")).slice(0, MYSQL_LOCK_NAME_LENGTH);
      }
      case null:
        return `${tenant}/${nameKeyOf(name)}`;
    }
  }

  async function nextToken(tenant: string, nameKey: string): Promise<bigint> {
    if (ctx.dialect.upsert === "on-duplicate-key") {
      // LAST_INSERT_ID(expr) is per connection: both statements on one.
      return ctx.db.connection().execute(async (db) => {
        await sql`insert into coordination_lock_tokens (tenant_id, name_key, token)
          values (${tenant}, ${nameKey}, last_insert_id(1))
          on duplicate key update token = last_insert_id(token + 1)`.execute(db);
        const r = await sql<{ t: unknown }>`select last_insert_id() as t`.execute(db);
        return BigInt(String(r.rows[0]!.t));
      });
    }
    const r = await sql<{ token: unknown }>`insert into coordination_lock_tokens
        (tenant_id, name_key, token) values (${tenant}, ${nameKey}, 1)
      on conflict (tenant_id, name_key)
        do update set token = coordination_lock_tokens.token + 1
      returning token`.execute(ctx.db);
    return BigInt(String(r.rows[0]!.token));
  }

  /** One try: the session lock, then a token. Null when held elsewhere (or here). */
  async function tryOnce(
    tenant: string,
    name: string,
    leaseMs: number,
  ): Promise<LockHandle | null> {
    if (closed) throw new Error("the locks are closed");
    const key = sessionKeyOf(tenant, name);
    // Held by this process (or being taken): a second session lock would re-enter it.
    if (held.has(key)) return null;
    held.add(key);
    const grantedAt = Date.now();
    let epoch: LockEpoch | null;
    let token: bigint;
    try {
      epoch = await session.tryLock(key);
      if (epoch === null) {
        held.delete(key);
        return null;
      }
    } catch (e) {
      held.delete(key);
      throw e;
    }
    try {
      token = await nextToken(tenant, nameKeyOf(name));
      if (epoch.lost) throw new UnavailableError("the lock's database connection dropped");
      if (closed) throw new Error("the locks are closed");
    } catch (e) {
      await session.unlock(key, epoch).catch(() => undefined);
      held.delete(key);
      throw e;
    }
    const theEpoch = epoch;
    let unsubscribe = () => {};
    const handle = new LeasedLock(
      tenant,
      name,
      token,
      leaseMs,
      grantedAt,
      {
        extend: () => session.alive(theEpoch),
        release: () => session.unlock(key, theEpoch),
      },
      () => {
        unsubscribe();
        mine.delete(handle);
        held.delete(key);
      },
    );
    mine.add(handle);
    unsubscribe = theEpoch.onLost(
      () => void handle.lose("the database connection holding it dropped", false),
    );
    return handle;
  }

  return {
    async acquire(tenant: string, name: string, options?: AcquireOptions) {
      const { waitMs, leaseMs } = checkAcquire(tenant, name, options);
      return tryUntil(waitMs, () => tryOnce(tenant, name, leaseMs));
    },

    async isCurrent(tenant: string, name: string, token: bigint) {
      checkIsCurrent(tenant, name, token);
      const r = await sql<{ token: unknown }>`select token from coordination_lock_tokens
        where tenant_id = ${tenant} and name_key = ${nameKeyOf(name)}`.execute(ctx.db);
      const row = r.rows[0];
      return row !== undefined && BigInt(String(row.token)) === token;
    },

    async close() {
      if (closed) return;
      closed = true;
      // Ending the session gives every lock back at the server; here, each handle learns it lost.
      for (const h of [...mine]) void h.lose("the locks were closed", false);
      await session.close();
      done();
    },
  };
}
