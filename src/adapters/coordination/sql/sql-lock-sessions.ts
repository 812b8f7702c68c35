/**
 * Where SQL locks are held: a session lock on one dedicated connection per
 * coordination (PostgreSQL advisory locks, MariaDB GET_LOCK), or, on SQLite,
 * nowhere but this process (one process per database file).
 *
 * A dedicated connection, not the store's pool: a session lock belongs to the
 * connection, and a pooled one would hand it to whoever uses it next. When the
 * connection drops (server restart, KILL, network) the server has ended the
 * session and every lock taken on it is gone: its epoch ends and every handle
 * of it loses its lock. The next acquire dials a new connection.
 *
 * Session locks are re-entrant within their session (a second acquire of a
 * held name on the same connection succeeds), so the caller must never ask
 * twice for a key it holds: sql-locks.ts keeps one grant per key in-process.
 */
import { mysqlPromiseDriver, pgDriver } from "../../drivers.ts";
import { UnavailableError } from "../../../domain/unavailable.ts";
import { isMysqlUnavailable } from "../../store/dialects/mysql/driver-errors.ts";
import { isPgUnavailable } from "../../store/dialects/postgres/driver-errors.ts";

/** As the store's pools: a black-holed host fails the attempt after 10 s. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * Every statement here answers at once on a live server (GET_LOCK waits 0).
 * One that does not within this has a connection nobody can trust: it is
 * dropped, with its locks, rather than left to TCP's minutes-long timeout.
 */
const QUERY_TIMEOUT_MS = 5000;

/** One connection's life: ends once, when it drops or is closed. */
export class LockEpoch {
  #lost = false;
  readonly #onLost = new Set<() => void>();

  get lost(): boolean {
    return this.#lost;
  }

  /** Runs `f` when this epoch ends; returns the unsubscribe. */
  onLost(f: () => void): () => void {
    if (this.#lost) {
      f();
      return () => undefined;
    }
    this.#onLost.add(f);
    return () => this.#onLost.delete(f);
  }

  end(): void {
    if (this.#lost) return;
    this.#lost = true;
    for (const f of [...this.#onLost]) f();
    this.#onLost.clear();
  }
}

export interface LockSession {
  /** Takes the session lock; the epoch it was taken in, or null when another session holds it. */
  tryLock(key: string): Promise<LockEpoch | null>;
  /** Gives it back (nothing to do when its epoch has ended). */
  unlock(key: string, epoch: LockEpoch): Promise<void>;
  /** One round trip on the connection: false when the epoch has ended. */
  alive(epoch: LockEpoch): Promise<boolean>;
  close(): Promise<void>;
}

/** SQLite: the process is the session; it never drops. */
export function processSession(): LockSession {
  const epoch = new LockEpoch();
  return {
    tryLock: () => Promise.resolve(epoch),
    unlock: () => Promise.resolve(),
    alive: (e) => Promise.resolve(!e.lost),
    close: () => {
      epoch.end();
      return Promise.resolve();
    },
  };
}

const MESSAGE = "the lock connection to the database is unavailable; retry later";

/** A driver error from the dedicated connection, as the store reports its own. */
function translate(isUnavailable: (e: unknown) => boolean): (e: unknown) => never {
  return (e) => {
    if (e instanceof UnavailableError || !isUnavailable(e)) throw e;
    throw new UnavailableError(MESSAGE, { cause: e });
  };
}

/** What differs between the two drivers: connect, query one value, close. */
interface LockConnection {
  /** The first column of the first row. */
  value(text: string, params: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

abstract class DedicatedSession implements LockSession {
  #current: { conn: LockConnection; epoch: LockEpoch } | undefined;
  #connecting: Promise<{ conn: LockConnection; epoch: LockEpoch }> | undefined;
  #closed = false;

  protected abstract readonly fail: (e: unknown) => never;
  protected abstract readonly tryLockSql: string;
  protected abstract readonly unlockSql: string;
  /** Opens a connection that calls `dropped` (maybe more than once) when it dies. */
  protected abstract open(dropped: () => void): Promise<LockConnection>;

  #connection(): Promise<{ conn: LockConnection; epoch: LockEpoch }> {
    if (this.#closed) return Promise.reject(new Error("the locks are closed"));
    if (this.#current !== undefined && !this.#current.epoch.lost) {
      return Promise.resolve(this.#current);
    }
    this.#connecting ??= (async () => {
      const epoch = new LockEpoch();
      // Set once connected; a drop reported during the connect finds it unset.
      const opened: { conn?: LockConnection } = {};
      const dropped = () => {
        if (epoch.lost) return;
        epoch.end();
        if (this.#current?.epoch === epoch) this.#current = undefined;
        void opened.conn?.end().catch(() => undefined);
      };
      const conn = await this.open(dropped).catch(this.fail);
      opened.conn = conn;
      const current = { conn, epoch };
      if (this.#closed || epoch.lost) {
        epoch.end();
        await conn.end().catch(() => undefined);
        throw this.#closed ? new Error("the locks are closed") : new UnavailableError(MESSAGE);
      }
      this.#current = current;
      return current;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** One statement on `c`, bounded by QUERY_TIMEOUT_MS; a failure that means "gone" ends `c`. */
  async #value(
    c: { conn: LockConnection; epoch: LockEpoch },
    text: string,
    params: unknown[],
  ): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // The statement may still be running there: only ending the session makes sure.
        c.epoch.end();
        if (this.#current === c) this.#current = undefined;
        void c.conn.end().catch(() => undefined);
        reject(new UnavailableError(`${MESSAGE} (no answer within ${QUERY_TIMEOUT_MS} ms)`));
      }, QUERY_TIMEOUT_MS);
    });
    try {
      return await Promise.race([c.conn.value(text, params), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A failed query on the connection: it is gone (or will be), and so are its locks. */
  #failed(c: { conn: LockConnection; epoch: LockEpoch }, e: unknown): never {
    try {
      this.fail(e);
    } catch (mapped) {
      if (mapped instanceof UnavailableError) {
        c.epoch.end();
        if (this.#current === c) this.#current = undefined;
        void c.conn.end().catch(() => undefined);
      }
      throw mapped;
    }
  }

  async tryLock(key: string): Promise<LockEpoch | null> {
    const c = await this.#connection();
    const ok = await this.#value(c, this.tryLockSql, [key]).catch((e) => this.#failed(c, e));
    if (!isTrue(ok)) return null;
    if (c.epoch.lost) throw new UnavailableError(MESSAGE);
    return c.epoch;
  }

  async unlock(key: string, epoch: LockEpoch): Promise<void> {
    const c = this.#current;
    if (epoch.lost || c === undefined || c.epoch !== epoch) return;
    try {
      await this.#value(c, this.unlockSql, [key]);
    } catch (e) {
      if (epoch.lost) return; // gone with the session
      this.#failed(c, e);
    }
  }

  async alive(epoch: LockEpoch): Promise<boolean> {
    const c = this.#current;
    if (epoch.lost || c === undefined || c.epoch !== epoch) return false;
    try {
      await this.#value(c, "select 1", []);
    } catch (e) {
      if (epoch.lost) return false;
      try {
        this.#failed(c, e);
      } catch (mapped) {
        // The session is gone, and its locks with it: the answer, not an error.
        if (mapped instanceof UnavailableError) return false;
        throw mapped;
      }
    }
    return !epoch.lost;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const connecting = this.#connecting;
    const c = this.#current;
    this.#current = undefined;
    if (c !== undefined) {
      c.epoch.end();
      await c.conn.end().catch(() => undefined);
    }
    await connecting?.catch(() => undefined);
  }
}

const isTrue = (v: unknown) => v === true || v === 1 || v === "1" || v === 1n;

/** pg_try_advisory_lock(bigint): session-scoped, released when the connection ends. */
class PgSession extends DedicatedSession {
  protected readonly fail = translate(isPgUnavailable);
  protected readonly tryLockSql = "select pg_try_advisory_lock($1::bigint) as v";
  protected readonly unlockSql = "select pg_advisory_unlock($1::bigint) as v";

  constructor(private readonly url: string) {
    super();
  }

  protected async open(dropped: () => void): Promise<LockConnection> {
    const client = new (pgDriver().Client)({
      connectionString: this.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: "taskflow-locks",
    });
    client.on("error", dropped);
    client.on("end", dropped);
    try {
      await client.connect();
    } catch (e) {
      void client.end().catch(() => undefined);
      throw e;
    }
    return {
      async value(text, params) {
        const r = await client.query<{ v: unknown }>(text, params);
        return r.rows[0] === undefined ? undefined : Object.values(r.rows[0])[0];
      },
      end: () => client.end(),
    };
  }
}

/** GET_LOCK(name, 0): session-scoped, released when the connection ends. */
class MysqlSession extends DedicatedSession {
  protected readonly fail = translate(isMysqlUnavailable);
  // Timeout 0: one try. The connection is shared by every lock of this
  // coordination, so a blocking GET_LOCK would hold up the others' releases.
  protected readonly tryLockSql = "select get_lock(?, 0) as v";
  protected readonly unlockSql = "select release_lock(?) as v";

  constructor(private readonly url: string) {
    super();
  }

  protected async open(dropped: () => void): Promise<LockConnection> {
    const conn = await mysqlPromiseDriver().createConnection({
      // mysql2 parses only the mysql:// scheme; mariadb:// is the same protocol.
      uri: this.url.replace(/^mariadb:/i, "mysql:"),
      connectTimeout: CONNECT_TIMEOUT_MS,
      charset: "utf8mb4",
    });
    // mysql2 emits 'error' on a connection that died, maybe more than once.
    conn.on("error", dropped);
    conn.on("end", dropped);
    return {
      async value(text, params) {
        const [rows] = await conn.query(text, params);
        const first = (rows as Record<string, unknown>[])[0];
        return first === undefined ? undefined : Object.values(first)[0];
      },
      end: () => conn.end(),
    };
  }
}

export function pgSession(url: string): LockSession {
  return new PgSession(url);
}

export function mysqlSession(url: string): LockSession {
  return new MysqlSession(url);
}
