/**
 * The group-committing SQLite driver (src/adapters/store/dialects/sqlite/group-commit.ts)
 * under real concurrency: many logical transactions share one physical
 * transaction, and none of them learns its result before that COMMIT.
 * Straight through Kysely on the SQLite dialect, with a throwaway table.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { sqliteDialect } from "../../src/adapters/store/dialects/sqlite/sqlite-dialect.ts";

interface Schema {
  items: { id: number; origin: string };
  counter: { id: number; n: number };
  parent: { id: number };
  child: { id: number; parent_id: number };
}

const dir = mkdtempSync(join(tmpdir(), "taskflow-group-commit-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A fresh file with the test tables, and a Kysely on it through the production dialect. */
async function openFresh(): Promise<{ db: Kysely<Schema>; path: string }> {
  const path = join(dir, `t${++files}.db`);
  const db = open(path);
  await db.transaction().execute(async (trx) => {
    await sql`create table items (id integer primary key, origin text not null)`.execute(trx);
    await sql`create table counter (id integer primary key, n integer not null)`.execute(trx);
    await sql`insert into counter (id, n) values (1, 0)`.execute(trx);
    await sql`create table parent (id integer primary key)`.execute(trx);
    await sql`create table child (id integer primary key, parent_id integer not null
      references parent (id) deferrable initially deferred)`.execute(trx);
  });
  return { db, path };
}

function open(path: string): Kysely<Schema> {
  return new Kysely<Schema>({ dialect: sqliteDialect(path, `sqlite:${path}`).kysely });
}

/**
 * Counts physical COMMITs by wrapping better-sqlite3's Statement#run (the
 * driver runs its prepared "commit" through it) for the duration of `fn`.
 */
async function countingCommits<T>(fn: () => Promise<T>): Promise<{ value: T; commits: number }> {
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("select 1")) as {
    run: (this: { source: string }, ...args: unknown[]) => unknown;
  };
  probe.close();
  const run = proto.run;
  let commits = 0;
  proto.run = function (this: { source: string }, ...args: unknown[]) {
    if (/^\s*commit\s*$/i.test(this.source)) commits++;
    return run.apply(this, args);
  };
  try {
    return { value: await fn(), commits };
  } finally {
    proto.run = run;
  }
}

const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);

const sqliteModule = new URL(
  "../../src/adapters/store/dialects/sqlite/sqlite-dialect.ts",
  import.meta.url,
).href;

/** Runs `body` (an ES module text; `open(path)` gives a Kysely on the file) in a child node process. */
function child(path: string, body: string) {
  const script = `
    import { Kysely } from "kysely";
    import { sqliteDialect } from ${JSON.stringify(sqliteModule)};
    const path = process.env.TF_PATH;
    const open = () => new Kysely({ dialect: sqliteDialect(path, "sqlite:" + path).kysely });
    ${body}
  `;
  return spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...process.env, TF_PATH: path },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

void describe("SQLite group commit", () => {
  void it("runs 200 concurrent logical transactions and 100 autocommit writes: exactly the resolved ones are committed, none lost, in few COMMITs", async () => {
    const { db } = await openFresh();
    try {
      const { value: settled, commits } = await countingCommits(() =>
        Promise.allSettled([
          ...Array.from({ length: 200 }, (_, i) =>
            db.transaction().execute(async (trx) => {
              await trx.insertInto("items").values({ id: i, origin: "tx" }).execute();
              // Read-modify-write: a lost update would show if transactions interleaved.
              const { n } = await trx
                .selectFrom("counter")
                .select("n")
                .where("id", "=", 1)
                .executeTakeFirstOrThrow();
              if (i % 10 === 0) await new Promise((r) => setImmediate(r)); // mid-flight across a macrotask
              await trx
                .updateTable("counter")
                .set({ n: n + 1 })
                .where("id", "=", 1)
                .execute();
              if (i % 7 === 0) throw new Error(`rollback ${i}`);
              return i;
            }),
          ),
          ...Array.from({ length: 100 }, (_, j) =>
            db
              .insertInto("items")
              .values({ id: 1000 + j, origin: "autocommit" })
              .execute()
              .then(() => 1000 + j),
          ),
        ]),
      );
      const resolved: number[] = [];
      settled.forEach((s, k) => {
        if (k < 200 && k % 7 === 0) {
          assert.equal(s.status, "rejected", `transaction ${k}`);
          assert.equal(s.reason.message, `rollback ${k}`);
        } else {
          assert.equal(
            s.status,
            "fulfilled",
            `member ${k}: ${String((s as PromiseRejectedResult).reason)}`,
          );
          resolved.push(s.value);
        }
      });
      assert.deepEqual(
        ids(await db.selectFrom("items").select("id").execute()),
        resolved.sort((a, b) => a - b),
      );
      const { n } = await db.selectFrom("counter").select("n").executeTakeFirstOrThrow();
      assert.equal(n, 200 - Math.ceil(200 / 7));
      // One physical COMMIT per member would be ~300; the batches share them.
      assert.ok(commits < 100, `${commits} commits for 300 members`);
    } finally {
      await db.destroy();
    }
  });

  void it("gives the event loop a turn every few ms during a long queue of transactions", async () => {
    // better-sqlite3 is synchronous: a queue of transactions handed the lock
    // from one to the next in microtasks would never let the loop poll for
    // I/O (accept a connection, read a socket) until the queue is empty.
    const { db } = await openFresh();
    try {
      let turns = 0;
      let running = true;
      const tick = () => {
        turns++;
        if (running) setImmediate(tick);
      };
      setImmediate(tick);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 2000 }, (_, i) =>
          db.transaction().execute(async (trx) => {
            await trx.insertInto("items").values({ id: i, origin: "tx" }).execute();
            const { n } = await trx
              .selectFrom("counter")
              .select("n")
              .where("id", "=", 1)
              .executeTakeFirstOrThrow();
            await trx
              .updateTable("counter")
              .set({ n: n + 1 })
              .where("id", "=", 1)
              .execute();
          }),
        ),
      );
      running = false;
      const ms = performance.now() - t0;
      // ≥ 5 turns: at a 5 ms budget 2,000 transactions (tens of ms) take many;
      // without one, they ran in a single turn and the loop got none.
      assert.ok(turns >= 5, `${turns} event-loop turns in ${ms.toFixed(0)} ms of transactions`);
      const { n } = await db.selectFrom("counter").select("n").executeTakeFirstOrThrow();
      assert.equal(n, 2000, "no transaction lost or interleaved while yielding");
    } finally {
      await db.destroy();
    }
  });

  void it("delivers a result only after its COMMIT: another connection already sees the row", async () => {
    const { db, path } = await openFresh();
    const reader = new Database(path, { readonly: true });
    try {
      const seen = (id: number) =>
        reader.prepare("select count(*) as n from items where id = ?").get(id) as { n: number };
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const write =
            i % 2 === 0
              ? db.insertInto("items").values({ id: i, origin: "autocommit" }).execute()
              : db
                  .transaction()
                  .execute((trx) =>
                    trx.insertInto("items").values({ id: i, origin: "tx" }).execute(),
                  );
          // Checked synchronously at resolution, before anything else can run.
          return write.then(() => seen(i).n);
        }),
      );
      assert.deepEqual(
        outcomes,
        Array.from({ length: 100 }, () => 1),
      );
    } finally {
      reader.close();
      await db.destroy();
    }
  });

  void it("keeps what a process reported as written when it is killed -9 right after", async () => {
    const { db, path } = await openFresh();
    await db.destroy();
    // Crash recovery of what was reported (WAL, synchronous=NORMAL). Not the
    // ordering proof: a result delivered before its COMMIT would still be
    // committed microseconds later, long before a kill lands; the test above
    // is the one that fails then.
    // 32 writers insert for ever; each id is printed once its write resolved.
    // Each writer yields a macrotask per write, as a server does for its I/O:
    // a pure chain of SQLite promises never returns to the event loop, and
    // stdout would stop being flushed once the pipe is full.
    const proc = child(
      path,
      `
      const db = open();
      let next = 0;
      const writer = async () => {
        for (;;) {
          const id = next++;
          if (id % 2 === 0) await db.insertInto("items").values({ id, origin: "autocommit" }).execute();
          else await db.transaction().execute((trx) => trx.insertInto("items").values({ id, origin: "tx" }).execute());
          process.stdout.write(id + "\\n");
          await new Promise((r) => setImmediate(r));
        }
      };
      for (let i = 0; i < 32; i++) void writer();
    `,
    );
    let out = "";
    let stderr = "";
    proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      proc.on("exit", (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      proc.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.split("\n").length > 2000) {
          proc.kill("SIGKILL"); // in the middle of the stream of writes
          resolve();
        }
      });
      proc.on("exit", () => reject(new Error(`the writer exited on its own: ${stderr}`)));
    });
    assert.equal(await exited, "SIGKILL");
    const reported = out
      .split("\n")
      .filter((l) => /^\d+$/.test(l)) // a last line may be cut
      .map(Number);
    assert.ok(reported.length >= 2000);
    const file = new Database(path); // recovers the WAL of the killed process
    try {
      const present = new Set(
        (file.prepare("select id from items").all() as { id: number }[]).map((r) => r.id),
      );
      const missing = reported.filter((id) => !present.has(id));
      assert.deepEqual(missing, [], "reported as written but not in the file");
    } finally {
      file.close();
    }
  });

  void it("rolls back one logical transaction of a batch without losing the others", async () => {
    const { db } = await openFresh();
    try {
      const { value: settled, commits } = await countingCommits(() =>
        Promise.allSettled(
          ["a", "b", "c"].map((name, i) =>
            db.transaction().execute(async (trx) => {
              await trx.insertInto("items").values({ id: i, origin: name }).execute();
              if (name === "b") throw new Error("b fails");
            }),
          ),
        ),
      );
      assert.deepEqual(
        settled.map((s) => s.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      assert.equal(commits, 1, "the three shared one physical transaction");
      const rows = await db.selectFrom("items").select(["id", "origin"]).orderBy("id").execute();
      assert.deepEqual(rows, [
        { id: 0, origin: "a" },
        { id: 2, origin: "c" },
      ]);
    } finally {
      await db.destroy();
    }
  });

  void it("rejects a failing statement alone: in a transaction the caller goes on, in autocommit the batch goes on", async () => {
    const { db } = await openFresh();
    try {
      await db.insertInto("items").values({ id: 1, origin: "first" }).execute();
      const settled = await Promise.allSettled([
        db.transaction().execute(async (trx) => {
          await trx.insertInto("items").values({ id: 10, origin: "tx" }).execute();
          await assert.rejects(
            trx.insertInto("items").values({ id: 1, origin: "duplicate" }).execute(),
            { code: "SQLITE_CONSTRAINT_PRIMARYKEY" },
          );
          await trx.insertInto("items").values({ id: 11, origin: "tx" }).execute();
        }),
        db.insertInto("items").values({ id: 20, origin: "autocommit" }).execute(),
        db.insertInto("items").values({ id: 1, origin: "duplicate" }).execute(),
        db.insertInto("items").values({ id: 21, origin: "autocommit" }).execute(),
      ]);
      assert.deepEqual(
        settled.map((s) => s.status),
        ["fulfilled", "fulfilled", "rejected", "fulfilled"],
      );
      assert.equal(
        ((settled[2] as PromiseRejectedResult).reason as { code: string }).code,
        "SQLITE_CONSTRAINT_PRIMARYKEY",
      );
      assert.deepEqual(
        ids(await db.selectFrom("items").select("id").execute()),
        [1, 10, 11, 20, 21],
      );
    } finally {
      await db.destroy();
    }
  });

  void it("rejects every member of a batch whose COMMIT fails, and goes on afterwards", async () => {
    const { db } = await openFresh();
    try {
      // A deferred foreign key is checked at COMMIT, not at RELEASE of a savepoint:
      // the orphan fails the physical COMMIT of everybody in its batch.
      const settled = await Promise.allSettled([
        ...[1, 2, 3].map((id) =>
          db.transaction().execute((trx) => trx.insertInto("parent").values({ id }).execute()),
        ),
        db
          .transaction()
          .execute((trx) => trx.insertInto("child").values({ id: 1, parent_id: 999 }).execute()),
        ...[4, 5].map((id) => db.insertInto("parent").values({ id }).execute()),
        db.selectFrom("parent").selectAll().execute(), // a read of uncommitted rows
      ]);
      for (const s of settled) {
        assert.equal(s.status, "rejected");
        assert.equal((s.reason as { code: string }).code, "SQLITE_CONSTRAINT_FOREIGNKEY");
      }
      assert.deepEqual(await db.selectFrom("parent").selectAll().execute(), []);
      assert.deepEqual(await db.selectFrom("child").selectAll().execute(), []);
      await db.insertInto("parent").values({ id: 6 }).execute();
      await db.transaction().execute((trx) => trx.insertInto("parent").values({ id: 7 }).execute());
      assert.deepEqual(ids(await db.selectFrom("parent").select("id").execute()), [6, 7]);
    } finally {
      await db.destroy();
    }
  });

  void it("lets two processes write one file at once: both succeed, nothing lost", async () => {
    const { db, path } = await openFresh();
    await db.destroy();
    const startAt = Date.now() + 1500; // after both processes have booted
    const runs = await Promise.all(
      [0, 1].map(
        (p) =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const proc = child(
              path,
              `
              const db = open();
              await new Promise((r) => setTimeout(r, Math.max(0, ${startAt} - Date.now())));
              let next = 0;
              const writer = async () => {
                while (next < 500) {
                  const id = ${p * 100_000} + next++;
                  if (id % 2 === 0) await db.insertInto("items").values({ id, origin: "p${p}" }).execute();
                  else await db.transaction().execute(async (trx) => {
                    await trx.insertInto("items").values({ id, origin: "p${p}" }).execute();
                    const { n } = await trx.selectFrom("counter").select("n").where("id", "=", 1).executeTakeFirstOrThrow();
                    await trx.updateTable("counter").set({ n: n + 1 }).where("id", "=", 1).execute();
                  });
                }
              };
              await Promise.all(Array.from({ length: 16 }, writer));
              await db.destroy();
            `,
            );
            let stderr = "";
            proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
            proc.on("exit", (code) => resolve({ code, stderr }));
          }),
      ),
    );
    for (const r of runs) assert.equal(r.code, 0, `a writing process failed: ${r.stderr}`);
    const file = open(path);
    try {
      const rows = await file.selectFrom("items").select("origin").execute();
      assert.equal(rows.filter((r) => r.origin === "p0").length, 500);
      assert.equal(rows.filter((r) => r.origin === "p1").length, 500);
      const { n } = await file.selectFrom("counter").select("n").executeTakeFirstOrThrow();
      assert.equal(n, 500, "250 read-modify-write transactions per process, none lost");
    } finally {
      await file.destroy();
    }
  });
});
