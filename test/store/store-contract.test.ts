/**
 * The TaskStore port's contract, run unchanged against every backend (the Hono
 * `common.case.test.ts` pattern): `registerStoreCases(backend)` registers the
 * cases, the loop at the bottom runs them once per backend — PgTaskStore on
 * PostgreSQL, SqlTaskStore (the locked transaction) on MariaDB and SQLite.
 * Real servers only; every test gets its own fresh database from
 * test/support/backends.ts.
 *
 * Fixtures are written through the SQL adapter's own transaction (TaskTx), as
 * are the cases of its statements that the commands are made of ("the locked
 * transaction's combined writes", conditional updates, joins, locks). The one
 * skip says why: SQLite serialises whole transactions, so a lock wait cannot
 * be observed there.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { Kysely } from "kysely";
import {
  createStore,
  dialectFor,
  type StandaloneStore,
} from "../../src/adapters/store/create-store.ts";
import { migrationsFor } from "../../src/adapters/store/migrations/migration-provider.ts";
import type { Definition } from "../../src/domain/definition.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import { newId } from "../../src/domain/ids.ts";
import type { Instance, ProcessState } from "../../src/domain/instance.ts";
import type { Task, TaskStatus } from "../../src/domain/task.ts";
import type { TaskChange, TaskEvent } from "../../src/domain/task-event.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import type { TaskTx } from "../../src/adapters/store/task-store/task-tx.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { NO_TASK_DETAILS } from "../../src/domain/task-details.ts";

/** The SQL adapter: the TaskStore port, and its transaction for fixtures and its own statements. */
type Store = StandaloneStore;
type StoreTx = TaskTx;

const A = "tenant-a";
const B = "tenant-b";

// ---------------------------------------------------------------- fixtures

function definition(tenantId: string, key: string, name = `Process ${key}`): Definition {
  return { id: newId(), tenantId, key, name, createdAt: 1_700_000_000_000 };
}

function rootOf(
  d: Definition,
  startedBy: string,
  processState: ProcessState = "notStarted",
): Instance {
  const id = newId();
  return {
    id,
    tenantId: d.tenantId,
    kind: "process",
    definitionId: d.id,
    definitionKey: d.key,
    parentInstanceId: null,
    rootInstanceId: id,
    status: processState === "closed" ? "completed" : "running",
    processState,
    vars: { amount: 120, note: "ünïcødé ✓", nested: { list: [1, "two", null] } },
    startedBy,
    createdAt: 1_700_000_000_001,
    completedAt: processState === "closed" ? 1_700_000_000_002 : null,
    onAllCompleted: null,
    joinedAt: null,
  };
}

function referralOf(root: Instance, over: Partial<Instance> = {}): Instance {
  return {
    ...root,
    id: newId(),
    kind: "referral",
    parentInstanceId: root.id,
    rootInstanceId: root.rootInstanceId,
    status: "running",
    processState: null,
    vars: { step: "review" },
    completedAt: null,
    onAllCompleted: {
      definitionKey: root.definitionKey,
      assignee: { kind: "users", ids: ["u7", "u8"] },
      vars: { next: true },
      onAllCompleted: { assignee: { kind: "group", id: "finance" } },
    },
    ...over,
  };
}

/** A patch as the task shows it: its change is the trail's, not a task field. */
function omitChange<T extends { change: TaskChange }>(p: T): Omit<T, "change"> {
  const { change: _change, ...rest } = p;
  return rest;
}

/** An update's change, as the use cases describe one. */
const changed = (kind: TaskChange["kind"], by: string, at: number): TaskChange => ({
  kind,
  by,
  at,
  reason: null,
});

/** A cancellation by the engine at `at`, as the use cases describe one. */
const cancelledAt = (at: number): TaskChange => ({
  kind: "cancelled",
  by: null,
  at,
  reason: "test",
});

function taskOf(
  referral: Instance,
  assignee: { kind: "user" | "group"; id: string },
  over: Partial<Task> = {},
): Task {
  return {
    ...NO_TASK_DETAILS,
    id: newId(),
    tenantId: referral.tenantId,
    instanceId: referral.id,
    rootInstanceId: referral.rootInstanceId,
    definitionKey: referral.definitionKey,
    assigneeKind: assignee.kind,
    assigneeId: assignee.id,
    assignedBy: "boss",
    status: "open",
    claimedBy: null,
    claimedAt: null,
    completedBy: null,
    completedAt: null,
    vars: null,
    action: null,
    comment: null,
    owner: null,
    delegation: null,
    createdAt: 1_700_000_000_010,
    ...over,
  };
}

/** A definition, a root and one referral in `tenantId`, committed. */
async function seedTree(store: Store, tenantId: string, startedBy = "u1") {
  const d = definition(tenantId, "leave");
  const root = rootOf(d, startedBy, "open");
  const referral = referralOf(root);
  await store.transaction(async (tx) => {
    await tx.ensureDefinition(d);
    await tx.insertInstance(root);
    await tx.insertInstance(referral);
  });
  return { d, root, referral };
}

async function insertTasks(store: Store, tasks: Task[]) {
  await store.transaction((tx) => tx.insertTasks(tasks));
}

const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

/** Runs `n` transactions at once and reports the results and how many overlapped. */
async function raceTransactions<T>(
  store: Store,
  n: number,
  body: (tx: StoreTx, i: number) => Promise<T>,
): Promise<{ results: T[]; maxOverlap: number }> {
  let open = 0;
  let maxOverlap = 0;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      store.transaction(async (tx) => {
        open += 1;
        maxOverlap = Math.max(maxOverlap, open);
        try {
          const r = await body(tx, i);
          // Hold the transaction (and its row locks) open so the others pile up behind it.
          await sleep(15);
          return r;
        } finally {
          open -= 1;
        }
      }),
    ),
  );
  return { results, maxOverlap };
}

const createStoreModule = new URL("../../src/adapters/store/create-store.ts", import.meta.url).href;

/** A separate node process that migrates `url`, starting at wall-clock `startAt` — a second "node". */
function migrateInChildProcess(
  url: string,
  startAt: number,
): Promise<{ code: number | null; stderr: string }> {
  const script = `
    import { createStore } from ${JSON.stringify(createStoreModule)};
    await new Promise((r) => setTimeout(r, Math.max(0, ${startAt} - Date.now())));
    const store = createStore(process.env.TF_URL);
    try { await store.migrate(); } finally { await store.close(); }
  `;
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { env: { ...process.env, TF_URL: url }, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

// ---------------------------------------------------------------- the cases

function registerStoreCases(backend: Backend) {
  /** A fresh database, migrated; closed and dropped afterwards whatever happens. */
  async function withStore(
    fn: (store: Store, url: string) => Promise<void>,
    options: { poolSize?: number } = {},
  ): Promise<void> {
    const db = await createTestDatabase(backend);
    const store = createStore(db.url, options);
    try {
      await store.migrate();
      await fn(store, db.url);
    } finally {
      await store.close();
      await db.drop();
    }
  }

  /** PostgreSQL and MariaDB run transactions on parallel connections; SQLite serialises them. */
  const parallel = backend.name !== "sqlite";

  void describe("migrations", () => {
    void it("reports its backend", () =>
      withStore(async (_store, url) => {
        const database = openDatabase(url);
        assert.equal(database.backend, backend.name);
        await database.close();
      }));

    void it("are idempotent: migrating again, from the same or another store, changes nothing", () =>
      withStore(async (store, url) => {
        const { root } = await seedTree(store, A);
        await store.migrate();
        const other = createStore(url);
        try {
          await other.migrate();
          assert.equal((await other.getInstance(A, root.id))?.id, root.id);
        } finally {
          await other.close();
        }
      }));

    void it("are safe when three nodes migrate one fresh database at once", async () => {
      const db = await createTestDatabase(backend);
      try {
        const startAt = Date.now() + 1500; // after all three processes have booted
        const runs = await Promise.all([1, 2, 3].map(() => migrateInChildProcess(db.url, startAt)));
        // SQLite allows one process per file (dialects/sqlite/process-lock.ts): a process that
        // finds the file taken refuses, and that is the safe outcome there; one of them migrates.
        const refused = (r: { stderr: string }) =>
          backend.name === "sqlite" && r.stderr.includes("one process per SQLite file");
        for (const r of runs) {
          if (!refused(r)) assert.equal(r.code, 0, `a migrating node failed: ${r.stderr}`);
        }
        assert.ok(
          runs.some((r) => r.code === 0),
          "one node migrated",
        );

        const k = new Kysely<{ kysely_migration: { name: string } }>({
          dialect: dialectFor(db.url).kysely,
        });
        try {
          const applied = await k.selectFrom("kysely_migration").select("name").execute();
          assert.deepEqual(
            applied.map((r) => r.name).sort(),
            Object.keys(migrationsFor(dialectFor(db.url))).sort(),
          );
        } finally {
          await k.destroy();
        }
        const store = createStore(db.url);
        try {
          await store.migrate();
          const { root } = await seedTree(store, A);
          assert.equal((await store.getInstance(A, root.id))?.id, root.id);
        } finally {
          await store.close();
        }
      } finally {
        await db.drop();
      }
    });
  });

  void describe("transactions", () => {
    void it("commit and return the callback's value", () =>
      withStore(async (store) => {
        const d = definition(A, "k1");
        const out = await store.transaction(async (tx) => {
          await tx.ensureDefinition(d);
          return 42;
        });
        assert.equal(out, 42);
        assert.equal((await store.getDefinition(A, "k1"))?.id, d.id);
      }));

    void it("roll back on throw and rethrow the very same error", () =>
      withStore(async (store) => {
        const boom = new Error("boom");
        const d = definition(A, "k1");
        const root = rootOf(d, "u1");
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.ensureDefinition(d);
            await tx.insertInstance(root);
            throw boom;
          }),
          (e) => e === boom,
        );
        assert.equal(await store.getDefinition(A, "k1"), undefined);
        assert.equal(await store.getInstance(A, root.id), undefined);
        // The connection is usable afterwards.
        await store.transaction((tx) => tx.ensureDefinition(d));
        assert.equal((await store.getDefinition(A, "k1"))?.id, d.id);
      }));

    void it("see their own writes through the StoreTx reads", () =>
      withStore(async (store) => {
        const d = definition(A, "k1");
        const root = rootOf(d, "u1");
        const ref = referralOf(root);
        const t = taskOf(ref, { kind: "user", id: "u1" });
        await store.transaction(async (tx) => {
          await tx.ensureDefinition(d);
          await tx.insertInstance(root);
          await tx.insertInstance(ref);
          await tx.insertTasks([t]);
          assert.deepEqual(await tx.getInstance(A, root.id), root);
          assert.deepEqual(ids(await tx.listChildren(A, root.id)), [ref.id]);
          assert.deepEqual(await tx.getTask(A, t.id), t);
          assert.equal((await tx.countTasksByStatus(A, ref.id)).open, 1);
        });
      }));

    void it("a statement after a lock wait sees what the lock holder committed (READ COMMITTED)", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        const t = taskOf(referral, { kind: "group", id: "g1" });
        await insertTasks(store, [t]);

        let holderLocked!: () => void;
        const locked = new Promise<void>((r) => (holderLocked = r));
        const holder = store.transaction(async (tx) => {
          await tx.lockInstance(A, root.id);
          holderLocked();
          await tx.updateTask(A, t.id, ["open"], {
            status: "claimed",
            claimedBy: "u1",
            claimedAt: 5,
            change: changed("claimed", "u1", 5),
          });
          await sleep(150);
        });
        await locked;
        const seenAfterLock = await store.transaction(async (tx) => {
          // A plain read first: under REPEATABLE READ it would pin the snapshot.
          await tx.getInstance(A, root.id);
          await tx.lockInstance(A, root.id);
          return tx.getTask(A, t.id);
        });
        await holder;
        assert.equal(seenAfterLock?.status, "claimed");
        assert.equal(seenAfterLock?.claimedBy, "u1");
      }));
  });

  void describe("definitions", () => {
    void it("ensureDefinition inserts once and afterwards returns the stored row", () =>
      withStore(async (store) => {
        const first = definition(A, "leave", "Leave request");
        const again = definition(A, "leave", "Another name");
        const r1 = await store.transaction((tx) => tx.ensureDefinition(first));
        const r2 = await store.transaction((tx) => tx.ensureDefinition(again));
        assert.deepEqual(r1, first);
        assert.deepEqual(r2, first);
        assert.deepEqual(await store.getDefinition(A, "leave"), first);
        assert.equal(await store.getDefinition(A, "missing"), undefined);
      }));

    void it("ensureDefinition is race-free: 10 concurrent creators of one key agree on one row", () =>
      withStore(
        async (store) => {
          const candidates = Array.from({ length: 10 }, () => definition(A, "race"));
          const { results, maxOverlap } = await raceTransactions(store, 10, (tx, i) =>
            tx.ensureDefinition(candidates[i]!),
          );
          const winners = new Set(results.map((d) => d.id));
          assert.equal(winners.size, 1);
          assert.ok(candidates.some((c) => winners.has(c.id)));
          assert.equal((await store.listDefinitions(A, { limit: 50 })).length, 1);
          if (parallel) assert.ok(maxOverlap > 1, `transactions did not overlap (${maxOverlap})`);
        },
        { poolSize: 12 },
      ));

    void it("listDefinitions pages by id", () =>
      withStore(async (store) => {
        const defs = ["a", "b", "c", "d", "e"].map((k) => definition(A, k));
        await store.transaction(async (tx) => {
          for (const d of defs) await tx.ensureDefinition(d);
        });
        const p1 = await store.listDefinitions(A, { limit: 2 });
        const p2 = await store.listDefinitions(A, { limit: 2, after: p1.at(-1)!.id });
        const p3 = await store.listDefinitions(A, { limit: 2, after: p2.at(-1)!.id });
        assert.deepEqual([...ids(p1), ...ids(p2), ...ids(p3)], ids(defs));
        assert.equal(p3.length, 1);
        assert.deepEqual(await store.listDefinitions(A, { limit: 2, after: defs[4]!.id }), []);
      }));
  });

  void describe("instances", () => {
    void it("round-trip every field, including JSON vars and a nested onAllCompleted", () =>
      withStore(async (store) => {
        const { d, root, referral } = await seedTree(store, A);
        assert.deepEqual(await store.getInstance(A, root.id), root);
        assert.deepEqual(await store.getInstance(A, referral.id), referral);
        assert.equal((await store.getInstance(A, referral.id))?.definitionId, d.id);
        assert.equal(await store.getInstance(A, newId()), undefined);
      }));

    void it("listChildren returns the children of one parent in id order", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        const r2 = referralOf(root);
        const r3 = referralOf(root);
        await store.transaction(async (tx) => {
          await tx.insertInstance(r2);
          await tx.insertInstance(r3);
        });
        assert.deepEqual(ids(await store.listChildren(A, root.id)), [referral.id, r2.id, r3.id]);
        assert.deepEqual(await store.listChildren(A, r2.id), []);
      }));

    void it("lockInstance reads the row (and undefined when absent)", () =>
      withStore(async (store) => {
        const { root } = await seedTree(store, A);
        await store.transaction(async (tx) => {
          assert.deepEqual(await tx.lockInstance(A, root.id), root);
          assert.equal(await tx.lockInstance(A, newId()), undefined);
        });
      }));

    void it("lockRootOf finds the root of a task, a referral or a root, within the tenant only", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        const task = taskOf(referral, { kind: "user", id: "u1" });
        await insertTasks(store, [task]);
        await store.transaction(async (tx) => {
          assert.deepEqual(await tx.lockRootOf(A, { taskId: task.id }), root);
          assert.deepEqual(await tx.lockRootOf(A, { instanceId: referral.id }), root);
          assert.deepEqual(await tx.lockRootOf(A, { instanceId: root.id }), root);
          assert.equal(await tx.lockRootOf(A, { taskId: newId() }), undefined);
          assert.equal(await tx.lockRootOf(B, { taskId: task.id }), undefined);
          assert.equal(await tx.lockRootOf(B, { instanceId: referral.id }), undefined);
        });
      }));

    void it("completeInstance sets completed once and closes a root's process state", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        await store.transaction((tx) => tx.completeInstance(A, referral.id, 100));
        await store.transaction((tx) => tx.completeInstance(A, referral.id, 200));
        const ref = await store.getInstance(A, referral.id);
        assert.equal(ref?.status, "completed");
        assert.equal(ref?.completedAt, 100);
        assert.equal(ref?.processState, null);

        await store.transaction((tx) => tx.completeInstance(A, root.id, 300));
        const r = await store.getInstance(A, root.id);
        assert.equal(r?.status, "completed");
        assert.equal(r?.processState, "closed");
        assert.equal(r?.completedAt, 300);
      }));

    void it("setProcessState moves a root between states", () =>
      withStore(async (store) => {
        const d = definition(A, "k");
        const root = rootOf(d, "u1", "notStarted");
        await store.transaction(async (tx) => {
          await tx.ensureDefinition(d);
          await tx.insertInstance(root);
          await tx.setProcessState(A, root.id, "open");
        });
        assert.equal((await store.getInstance(A, root.id))?.processState, "open");
      }));

    void it("markJoined is true for exactly one caller", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        assert.equal(await store.transaction((tx) => tx.markJoined(A, referral.id, 10)), true);
        assert.equal(await store.transaction((tx) => tx.markJoined(A, referral.id, 20)), false);
        assert.equal((await store.getInstance(A, referral.id))?.joinedAt, 10);
        assert.equal(await store.transaction((tx) => tx.markJoined(A, newId(), 20)), false);
      }));

    void it("20 concurrent markJoined in separate transactions: exactly one true", () =>
      withStore(
        async (store) => {
          const { referral } = await seedTree(store, A);
          const { results, maxOverlap } = await raceTransactions(store, 20, (tx, i) =>
            tx.markJoined(A, referral.id, 1000 + i),
          );
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          assert.equal((await store.getInstance(A, referral.id))?.joinedAt, 1000 + winner);
          if (parallel) assert.ok(maxOverlap > 1, `transactions did not overlap (${maxOverlap})`);
        },
        { poolSize: 22 },
      ));

    void it("completeTree completes the root and every instance under it, and only those", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        const early = referralOf(root);
        const d2 = definition(A, "other");
        const otherRoot = rootOf(d2, "u1", "open");
        const otherRef = referralOf(otherRoot);
        await store.transaction(async (tx) => {
          await tx.insertInstance(early);
          await tx.completeInstance(A, early.id, 50);
          await tx.ensureDefinition(d2);
          await tx.insertInstance(otherRoot);
          await tx.insertInstance(otherRef);
        });
        await store.transaction((tx) => tx.completeTree(A, root.id, 300));

        const r = await store.getInstance(A, root.id);
        assert.equal(r?.status, "completed");
        assert.equal(r?.completedAt, 300);
        assert.equal(r?.processState, "closed");
        assert.equal((await store.getInstance(A, referral.id))?.completedAt, 300);
        assert.equal((await store.getInstance(A, early.id))?.completedAt, 50);
        assert.equal((await store.getInstance(A, otherRoot.id))?.status, "running");
        assert.equal((await store.getInstance(A, otherRoot.id))?.processState, "open");
        assert.equal((await store.getInstance(A, otherRef.id))?.status, "running");
      }));
  });

  void describe("tasks", () => {
    void it("round-trip every field and list per instance in id order", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const tasks = [
          taskOf(referral, { kind: "user", id: "u1" }),
          taskOf(
            referral,
            { kind: "group", id: "g1" },
            {
              status: "done",
              claimedBy: "u2",
              claimedAt: 11,
              completedBy: "u2",
              completedAt: 12,
              vars: { approved: true, comment: "ok ✓" },
            },
          ),
          taskOf(referral, { kind: "user", id: "u3" }),
        ];
        await insertTasks(store, tasks);
        await store.transaction((tx) => tx.insertTasks([])); // no-op
        for (const t of tasks) assert.deepEqual(await store.getTask(A, t.id), t);
        assert.deepEqual(await store.listTasksOfInstance(A, referral.id), tasks);
        assert.equal(await store.getTask(A, newId()), undefined);
        await store.transaction(async (tx) => {
          assert.deepEqual(await tx.lockTask(A, tasks[1]!.id), tasks[1]);
          assert.equal(await tx.lockTask(A, newId()), undefined);
        });
      }));

    void it("countTasksByStatus counts every status, zeros included", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const statuses: TaskStatus[] = ["open", "open", "claimed", "done", "done", "done"];
        await insertTasks(
          store,
          statuses.map((status) => taskOf(referral, { kind: "user", id: "u1" }, { status })),
        );
        assert.deepEqual(await store.countTasksByStatus(A, referral.id), {
          open: 2,
          claimed: 1,
          done: 3,
          cancelled: 0,
        });
        assert.deepEqual(await store.countTasksByStatus(A, newId()), {
          open: 0,
          claimed: 0,
          done: 0,
          cancelled: 0,
        });
      }));

    void it("updateTask applies the patch only while the status is one of `from`", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const t = taskOf(referral, { kind: "group", id: "g1" });
        await insertTasks(store, [t]);
        const claim = {
          status: "claimed",
          claimedBy: "u1",
          claimedAt: 10,
          change: changed("claimed", "u1", 10),
        } as const;
        assert.equal(
          await store.transaction((tx) => tx.updateTask(A, t.id, ["open"], claim)),
          true,
        );
        assert.equal(
          await store.transaction((tx) => tx.updateTask(A, t.id, ["open"], claim)),
          false,
        );
        assert.equal(
          await store.transaction((tx) =>
            tx.updateTask(A, t.id, ["claimed"], {
              status: "done",
              completedBy: "u1",
              completedAt: 20,
              vars: { ok: 1 },
              change: changed("completed", "u1", 20),
            }),
          ),
          true,
        );
        assert.deepEqual(await store.getTask(A, t.id), {
          ...t,
          ...omitChange(claim),
          status: "done",
          completedBy: "u1",
          completedAt: 20,
          vars: { ok: 1 },
        });
        assert.equal(
          await store.transaction((tx) =>
            tx.updateTask(A, t.id, ["open", "claimed"], {
              status: "open",
              claimedBy: null,
              change: changed("released", "u1", 11),
            }),
          ),
          false,
        );
        assert.equal(await store.transaction((tx) => tx.updateTask(A, t.id, [], claim)), false);
        assert.equal(await store.transaction((tx) => tx.updateTask(A, t.id, ["done"], {})), true);
        assert.equal(
          await store.transaction((tx) => tx.updateTask(A, newId(), ["open"], claim)),
          false,
        );
      }));

    void it("a release clears claimedBy back to null", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const t = taskOf(
          referral,
          { kind: "group", id: "g1" },
          { status: "claimed", claimedBy: "u1", claimedAt: 3 },
        );
        await insertTasks(store, [t]);
        const released = await store.transaction((tx) =>
          tx.updateTask(A, t.id, ["claimed"], {
            status: "open",
            claimedBy: null,
            claimedAt: null,
            change: changed("released", "u1", 12),
          }),
        );
        assert.equal(released, true);
        assert.deepEqual(await store.getTask(A, t.id), {
          ...t,
          status: "open",
          claimedBy: null,
          claimedAt: null,
        });
      }));

    void it("20 concurrent updateTask(from ['open']) in separate transactions: exactly one true", () =>
      withStore(
        async (store) => {
          const { referral } = await seedTree(store, A);
          const t = taskOf(referral, { kind: "group", id: "g1" });
          await insertTasks(store, [t]);
          const { results, maxOverlap } = await raceTransactions(store, 20, (tx, i) =>
            tx.updateTask(A, t.id, ["open"], {
              status: "claimed",
              claimedBy: `u${i}`,
              claimedAt: i,
              change: changed("claimed", `u${i}`, i),
            }),
          );
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          const stored = await store.getTask(A, t.id);
          assert.equal(stored?.claimedBy, `u${winner}`);
          assert.equal(stored?.claimedAt, winner);
          if (parallel) assert.ok(maxOverlap > 1, `transactions did not overlap (${maxOverlap})`);
        },
        { poolSize: 22 },
      ));

    void it("cancelOpenTasksOfRoot cancels open and claimed tasks of one tree, except one", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        const second = referralOf(root);
        const d2 = definition(A, "other");
        const otherRoot = rootOf(d2, "u1", "open");
        const otherRef = referralOf(otherRoot);
        await store.transaction(async (tx) => {
          await tx.insertInstance(second);
          await tx.ensureDefinition(d2);
          await tx.insertInstance(otherRoot);
          await tx.insertInstance(otherRef);
        });
        const u = { kind: "user", id: "u1" } as const;
        const a1 = taskOf(referral, u);
        const a2 = taskOf(referral, u, { status: "claimed", claimedBy: "u1", claimedAt: 1 });
        const a3 = taskOf(referral, u, { status: "done", completedBy: "u1", completedAt: 2 });
        const b1 = taskOf(second, u);
        const b2 = taskOf(second, u);
        const c1 = taskOf(otherRef, u);
        await insertTasks(store, [a1, a2, a3, b1, b2, c1]);

        const n = await store.transaction((tx) =>
          tx.cancelOpenTasksOfRoot(A, root.id, b1.id, cancelledAt(400)),
        );
        assert.equal(n, 3);
        for (const t of [a1, a2, b2]) {
          const s = await store.getTask(A, t.id);
          assert.equal(s?.status, "cancelled");
          assert.equal(s?.completedAt, 400);
        }
        assert.deepEqual(await store.getTask(A, a3.id), a3);
        assert.deepEqual(await store.getTask(A, b1.id), b1);
        assert.deepEqual(await store.getTask(A, c1.id), c1);
        assert.equal(
          await store.transaction((tx) =>
            tx.cancelOpenTasksOfRoot(A, root.id, b1.id, cancelledAt(500)),
          ),
          0,
        );
      }));
  });

  void describe("the locked transaction's combined writes", () => {
    void it("lockRootOf holds the root: an assignment under it waits for the commit", async (t) => {
      if (!parallel) return t.skip("SQLite serialises whole transactions");
      await withStore(
        async (store) => {
          const { root, referral } = await seedTree(store, A);
          const task = taskOf(referral, { kind: "user", id: "u1" });
          await insertTasks(store, [task]);
          const order: string[] = [];
          let locked!: () => void;
          const isLocked = new Promise<void>((r) => (locked = r));
          const holder = store.transaction(async (tx) => {
            await tx.lockRootOf(A, { taskId: task.id });
            locked();
            await sleep(150);
            order.push("holder commits");
          });
          await isLocked;
          await store.transaction(async (tx) => {
            await tx.lockRootForAssignment(A, root.id);
            order.push("assignment locked");
          });
          await holder;
          assert.deepEqual(order, ["holder commits", "assignment locked"]);
        },
        { poolSize: 4 },
      );
    });

    void it("lockRootForAssignment opens a notStarted root once, and leaves others as they are", () =>
      withStore(async (store) => {
        const d = definition(A, "k");
        const fresh = rootOf(d, "u1", "notStarted");
        const closed = rootOf(d, "u1", "closed");
        const ref = referralOf(fresh);
        await store.transaction(async (tx) => {
          await tx.ensureDefinition(d);
          await tx.insertInstance(fresh);
          await tx.insertInstance(closed);
          await tx.insertInstance(ref);
        });
        const opened = { ...fresh, processState: "open" as const };
        assert.deepEqual(
          await store.transaction((tx) => tx.lockRootForAssignment(A, ref.id)),
          opened,
        );
        assert.deepEqual(await store.getInstance(A, fresh.id), opened);
        assert.deepEqual(
          await store.transaction((tx) => tx.lockRootForAssignment(A, fresh.id)),
          opened,
        );
        assert.deepEqual(
          await store.transaction((tx) => tx.lockRootForAssignment(A, closed.id)),
          closed,
        );
        assert.deepEqual(await store.getInstance(A, closed.id), closed);
        assert.equal(
          await store.transaction((tx) => tx.lockRootForAssignment(A, newId())),
          undefined,
        );
        assert.equal(
          await store.transaction((tx) => tx.lockRootForAssignment(B, fresh.id)),
          undefined,
        );
      }));

    void it("completeTask writes only while status and claimer are unchanged, and counts the instance", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const g = taskOf(
          referral,
          { kind: "group", id: "g1" },
          { status: "claimed", claimedBy: "u1", claimedAt: 5 },
        );
        const u = taskOf(referral, { kind: "user", id: "u2" });
        const c = taskOf(referral, { kind: "user", id: "u3" }, { status: "cancelled" });
        await insertTasks(store, [g, u, c]);
        const patch = (by: string) => ({
          status: "done" as const,
          completedBy: by,
          completedAt: 20,
          vars: { ok: by },
          action: null,
          comment: null,
          change: { kind: "completed" as const, by, at: 20, reason: null },
        });
        // The claimer changed since the read: no write.
        assert.equal(
          await store.transaction((tx) =>
            tx.completeTask(A, { ...g, claimedBy: "u9" }, patch("u9"), true),
          ),
          undefined,
        );
        // The status changed since the read: no write.
        assert.equal(
          await store.transaction((tx) =>
            tx.completeTask(A, { ...g, status: "open", claimedBy: null }, patch("u1"), true),
          ),
          undefined,
        );
        assert.deepEqual(await store.getTask(A, g.id), g);
        assert.deepEqual(
          await store.transaction((tx) => tx.completeTask(A, g, patch("u1"), true)),
          { counts: { open: 1, claimed: 0, done: 1, cancelled: 1 } },
        );
        assert.deepEqual(await store.getTask(A, g.id), { ...g, ...omitChange(patch("u1")) });
        assert.equal(
          await store.transaction((tx) => tx.completeTask(A, g, patch("u1"), true)),
          undefined,
        );
        assert.deepEqual(
          await store.transaction((tx) => tx.completeTask(A, u, patch("u2"), false)),
          { counts: null },
        );
        assert.deepEqual(await store.getTask(A, u.id), { ...u, ...omitChange(patch("u2")) });
        assert.equal(
          await store.transaction((tx) => tx.completeTask(B, u, patch("u2"), true)),
          undefined,
        );
      }));

    void it("closeReferral completes the referral and takes the join exactly once", () =>
      withStore(async (store) => {
        const { root, referral } = await seedTree(store, A);
        const plain = referralOf(root, { onAllCompleted: null });
        await store.transaction((tx) => tx.insertInstance(plain));
        const first = await store.transaction((tx) => tx.closeReferral(A, referral.id, 100));
        const closed = {
          ...referral,
          status: "completed" as const,
          completedAt: 100,
          joinedAt: 100,
        };
        assert.deepEqual(first, { referral: closed, joined: true });
        assert.deepEqual(await store.getInstance(A, referral.id), closed);
        assert.deepEqual(await store.transaction((tx) => tx.closeReferral(A, referral.id, 200)), {
          referral: closed,
          joined: false,
        });
        // Without onAllCompleted: completed, never joined.
        const p = { ...plain, status: "completed" as const, completedAt: 300 };
        assert.deepEqual(await store.transaction((tx) => tx.closeReferral(A, plain.id, 300)), {
          referral: p,
          joined: false,
        });
        assert.deepEqual(await store.getInstance(A, plain.id), p);
        // A root closed this way is in process state 'closed'.
        const r = await store.transaction((tx) => tx.closeReferral(A, root.id, 400));
        assert.equal(r?.referral.processState, "closed");
        assert.equal(await store.transaction((tx) => tx.closeReferral(A, newId(), 1)), undefined);
        assert.equal(
          await store.transaction((tx) => tx.closeReferral(B, referral.id, 1)),
          undefined,
        );
      }));

    void it("closeReferral does not take a join that markJoined already took", () =>
      withStore(async (store) => {
        // The join is taken while the referral is still running, so the status
        // condition lets closeReferral's write through: only its joined_at
        // condition keeps it from taking the join a second time (and from moving
        // joined_at). Every engine path completes the referral in the same
        // transaction as it joins, which is why no engine-level test reaches this.
        const { referral } = await seedTree(store, A);
        assert.equal(await store.transaction((tx) => tx.markJoined(A, referral.id, 10)), true);
        const r = await store.transaction((tx) => tx.closeReferral(A, referral.id, 20));
        const closed = { ...referral, status: "completed" as const, completedAt: 20, joinedAt: 10 };
        assert.deepEqual(r, { referral: closed, joined: false });
        assert.deepEqual(await store.getInstance(A, referral.id), closed);
      }));

    void it("closeReferral after completeInstance still joins once (the step-by-step path)", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        await store.transaction((tx) => tx.completeInstance(A, referral.id, 50));
        const r = await store.transaction((tx) => tx.closeReferral(A, referral.id, 60));
        assert.equal(r?.joined, true);
        assert.deepEqual(
          [r?.referral.completedAt, r?.referral.joinedAt, r?.referral.status],
          [50, 60, "completed"],
        );
        const again = await store.transaction((tx) => tx.closeReferral(A, referral.id, 70));
        assert.equal(again?.joined, false);
      }));

    void it("20 concurrent closeReferral in separate transactions: exactly one joins", () =>
      withStore(
        async (store) => {
          const { referral } = await seedTree(store, A);
          const { results, maxOverlap } = await raceTransactions(store, 20, (tx, i) =>
            tx.closeReferral(A, referral.id, 1000 + i),
          );
          assert.equal(results.filter((r) => r?.joined).length, 1);
          const winner = results.findIndex((r) => r?.joined);
          const stored = await store.getInstance(A, referral.id);
          assert.deepEqual(
            [stored?.status, stored?.joinedAt, stored?.completedAt],
            ["completed", 1000 + winner, 1000 + winner],
          );
          if (parallel) assert.ok(maxOverlap > 1, `transactions did not overlap (${maxOverlap})`);
        },
        { poolSize: 22 },
      ));

    void it("insertReferral inserts the referral with its tasks, or alone", () =>
      withStore(async (store) => {
        const { root } = await seedTree(store, A);
        const ref = referralOf(root);
        const tasks = [
          taskOf(ref, { kind: "user", id: "u1" }),
          taskOf(ref, { kind: "group", id: "g1" }),
        ];
        const lone = referralOf(root);
        await store.transaction(async (tx) => {
          await tx.insertReferral(ref, tasks);
          await tx.insertReferral(lone, []);
        });
        assert.deepEqual(await store.getInstance(A, ref.id), ref);
        assert.deepEqual(await store.listTasksOfInstance(A, ref.id), tasks);
        assert.deepEqual(await store.getInstance(A, lone.id), lone);
        // All or nothing: a task of an unknown instance fails the whole insert.
        const bad = referralOf(root);
        await assert.rejects(
          store.transaction((tx) =>
            tx.insertReferral(bad, [taskOf(bad, { kind: "user", id: "u1" }), tasks[0]!]),
          ),
        );
        assert.equal(await store.getInstance(A, bad.id), undefined);
      }));

    void it("assign attaches to the root of a running tree, or writes nothing", () =>
      withStore(async (store) => {
        const d = definition(A, "leave");
        const other = definition(A, "other");
        const fresh = rootOf(d, "u1", "notStarted");
        const closed = rootOf(d, "u1", "closed");
        const mid = referralOf(fresh);
        await store.transaction(async (tx) => {
          await tx.ensureDefinition(d);
          await tx.ensureDefinition(other);
          await tx.insertInstance(fresh);
          await tx.insertInstance(closed);
          await tx.insertInstance(mid);
        });
        const part = (over: { onAllCompleted?: Instance["onAllCompleted"] } = {}) => ({
          id: newId(),
          vars: { n: 1, s: "ü" },
          startedBy: "boss",
          createdAt: 77,
          onAllCompleted: over.onAllCompleted ?? null,
        });
        const r1 = part({ onAllCompleted: { assignee: { kind: "user", id: "u9" } } });
        const t1 = [
          { id: newId(), assigneeKind: "user" as const, assigneeId: "u1" },
          { id: newId(), assigneeKind: "user" as const, assigneeId: "u2" },
        ];
        // Named through a referral of the tree: attaches to the root, with the root's definition.
        const got = await store.assign({
          tenantId: A,
          parentInstanceId: mid.id,
          definition: null,
          referral: r1,
          tasks: t1,
          details: NO_TASK_DETAILS,
        });
        assert.deepEqual(got, { ...fresh, processState: "open" });
        const stored = await store.getInstance(A, r1.id);
        assert.deepEqual(stored, {
          ...r1,
          tenantId: A,
          kind: "referral",
          definitionId: d.id,
          definitionKey: d.key,
          parentInstanceId: fresh.id,
          rootInstanceId: fresh.id,
          status: "running",
          processState: null,
          completedAt: null,
          joinedAt: null,
        });
        assert.deepEqual(
          (await store.listTasksOfInstance(A, r1.id)).map((t) => [
            t.id,
            t.assigneeKind,
            t.assigneeId,
            t.assignedBy,
            t.status,
            t.rootInstanceId,
            t.definitionKey,
            t.createdAt,
          ]),
          t1.map((t) => [t.id, "user", t.assigneeId, "boss", "open", fresh.id, d.key, 77]),
        );
        // An explicit definition, and the details every task of the referral shows.
        const r2 = part();
        const details = {
          title: "Approve the order",
          description: "Ä".repeat(4_000),
          priority: 90,
          dueAt: 1_800_000_000_000,
          followUpAt: 1_799_000_000_000,
          form: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          formUi: { order: ["ok"], fields: { ok: { label: { en: "OK", fa: "تأیید" } } } },
          actions: [
            { name: "approve", label: "Approve", commentRequired: false },
            { name: "reject", label: null, commentRequired: true },
          ],
          actionRequired: true,
          exclude: { users: ["u9"], starter: true, earlierCompleters: false },
        };
        await store.assign({
          tenantId: A,
          parentInstanceId: fresh.id,
          definition: { id: other.id, key: other.key },
          referral: r2,
          tasks: [
            { id: newId(), assigneeKind: "group", assigneeId: "g1" },
            { id: newId(), assigneeKind: "user", assigneeId: "u1" },
          ],
          details,
        });
        const s2 = await store.getInstance(A, r2.id);
        assert.deepEqual([s2?.definitionId, s2?.definitionKey], [other.id, other.key]);
        const tasks2 = await store.listTasksOfInstance(A, r2.id);
        assert.equal(tasks2[0]?.definitionKey, other.key);
        for (const t of tasks2) {
          const { title, description, priority, dueAt, followUpAt } = t;
          const { form, formUi, actions, actionRequired, exclude } = t;
          assert.deepEqual(
            {
              title,
              description,
              priority,
              dueAt,
              followUpAt,
              form,
              formUi,
              actions,
              actionRequired,
              exclude,
            },
            details,
          );
        }
        // A completed root, a missing instance, another tenant: nothing is written.
        for (const [tenantId, parentInstanceId] of [
          [A, closed.id],
          [A, newId()],
          [B, fresh.id],
        ] as const) {
          const r = part();
          const tid = newId();
          assert.equal(
            await store.assign({
              tenantId,
              parentInstanceId,
              definition: null,
              referral: r,
              tasks: [{ id: tid, assigneeKind: "user", assigneeId: "u1" }],
              details: NO_TASK_DETAILS,
            }),
            undefined,
          );
          assert.equal(await store.getInstance(tenantId, r.id), undefined);
          assert.equal(await store.getTask(tenantId, tid), undefined);
        }
        assert.deepEqual(await store.getInstance(A, closed.id), closed);
      }));

    void it("getTaskWithInstance reads a task with its instance, within the tenant only", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const task = taskOf(referral, { kind: "user", id: "u1" });
        await insertTasks(store, [task]);
        assert.deepEqual(await store.getTaskWithInstance(A, task.id), {
          task,
          instance: referral,
        });
        assert.equal(await store.getTaskWithInstance(A, newId()), undefined);
        assert.equal(await store.getTaskWithInstance(B, task.id), undefined);
      }));

    void describe("commands", () => {
      const patch = (by: string, at = 20) => ({
        status: "done" as const,
        completedBy: by,
        completedAt: at,
        vars: { by },
        action: "approve",
        comment: `by ${by}`,
        change: { kind: "completed" as const, by, at, reason: null },
      });
      /** A tree whose referral has `n` open user tasks and a join to u9. */
      async function seedJoin(store: Store, n: number) {
        const { root, referral } = await seedTree(store, A);
        const tasks = Array.from({ length: n }, (_, i) =>
          taskOf(referral, { kind: "user", id: `u${i}` }),
        );
        await insertTasks(store, tasks);
        const joinRef = referralOf(root, {
          id: newId(),
          startedBy: referral.startedBy,
          vars: {},
          onAllCompleted: null,
        });
        // The join's task asks for a form and an action: its columns are written with it.
        const asks = {
          title: "Sign off",
          form: { type: "object", properties: { note: { type: "string" } } },
          formUi: { fields: { note: { widget: "textarea" as const } } },
          actions: [{ name: "sign", label: { en: "Sign" }, commentRequired: true }],
          actionRequired: true,
        };
        const join = {
          referral: joinRef,
          tasks: [taskOf(joinRef, { kind: "user", id: "u9" }, asks)],
        };
        return { root, referral, tasks, join };
      }
      const notWritten = (because: "task" | "root") => ({ written: false, because });

      void it("complete: a task, then the referral with its last one, and the join once", () =>
        withStore(async (store) => {
          const { referral, tasks, join } = await seedJoin(store, 2);
          const [t0, t1] = tasks as [Task, Task];
          const one = { tenantId: A, join, next: null };
          assert.deepEqual(await store.complete({ ...one, task: t0, patch: patch("u0") }), {
            written: true,
            counts: { open: 1, claimed: 0, done: 1, cancelled: 0 },
            closed: false,
            joined: false,
          });
          assert.deepEqual(await store.getTask(A, t0.id), { ...t0, ...omitChange(patch("u0")) });
          assert.equal(await store.getInstance(A, join.referral.id), undefined);
          // The same task again: nothing is written.
          assert.deepEqual(
            await store.complete({ ...one, task: t0, patch: patch("u0", 30) }),
            notWritten("task"),
          );
          assert.deepEqual(await store.complete({ ...one, task: t1, patch: patch("u1", 40) }), {
            written: true,
            counts: { open: 0, claimed: 0, done: 2, cancelled: 0 },
            closed: true,
            joined: true,
          });
          assert.deepEqual(await store.getInstance(A, referral.id), {
            ...referral,
            status: "completed",
            completedAt: 40,
            joinedAt: 40,
          });
          assert.deepEqual(await store.getInstance(A, join.referral.id), join.referral);
          assert.deepEqual(await store.listTasksOfInstance(A, join.referral.id), join.tasks);
        }));

      void it("complete: the last task, but no join that markJoined already took", () =>
        withStore(async (store) => {
          // With the referral still running, only the joined_at condition keeps the
          // join from being taken twice; the referral is completed all the same.
          const { referral, tasks, join } = await seedJoin(store, 1);
          const t0 = tasks[0]!;
          assert.equal(await store.transaction((tx) => tx.markJoined(A, referral.id, 10)), true);
          assert.deepEqual(
            await store.complete({ tenantId: A, join, next: null, task: t0, patch: patch("u0") }),
            {
              written: true,
              counts: { open: 0, claimed: 0, done: 1, cancelled: 0 },
              closed: true,
              joined: false,
            },
          );
          assert.deepEqual(await store.getTask(A, t0.id), { ...t0, ...omitChange(patch("u0")) });
          assert.deepEqual(await store.getInstance(A, referral.id), {
            ...referral,
            status: "completed",
            completedAt: 20,
            joinedAt: 10,
          });
          assert.equal(await store.getInstance(A, join.referral.id), undefined);
        }));

      void it("complete writes nothing when the task changed since it was read, or a join meets a completed root", () =>
        withStore(async (store) => {
          const { root, tasks, join } = await seedJoin(store, 1);
          const t0 = tasks[0]!;
          const one = { tenantId: A, join, next: null };
          assert.deepEqual(
            await store.complete({
              ...one,
              task: { ...t0, status: "claimed", claimedBy: "u0" },
              patch: patch("u0"),
            }),
            notWritten("task"),
          );
          await store.transaction((tx) => tx.completeInstance(A, root.id, 5));
          assert.deepEqual(
            await store.complete({ ...one, task: t0, patch: patch("u0") }),
            notWritten("root"),
          );
          assert.deepEqual(await store.getTask(A, t0.id), t0);
          assert.equal(await store.getInstance(A, join.referral.id), undefined);
          // Without a join to make the task is completed all the same.
          assert.deepEqual(
            await store.complete({ ...one, join: null, task: t0, patch: patch("u0") }),
            {
              written: true,
              counts: { open: 0, claimed: 0, done: 1, cancelled: 0 },
              closed: true,
              joined: false,
            },
          );
          // A task that does not exist, or in another tenant.
          const ghost = { ...t0, id: newId() };
          assert.deepEqual(
            await store.complete({ ...one, task: ghost, patch: patch("u0") }),
            notWritten("task"),
          );
        }));

      void it("complete with `next` inserts it under the root, or nothing under a completed one", () =>
        withStore(async (store) => {
          const { root, tasks, join } = await seedJoin(store, 2);
          const [t0, t1] = tasks as [Task, Task];
          const nextRef = referralOf(root, { id: newId(), vars: {}, onAllCompleted: null });
          const next = { referral: nextRef, tasks: [taskOf(nextRef, { kind: "user", id: "u5" })] };
          const r = await store.complete({ tenantId: A, join, next, task: t0, patch: patch("u0") });
          assert.deepEqual(r, {
            written: true,
            counts: { open: 1, claimed: 0, done: 1, cancelled: 0 },
            closed: false,
            joined: false,
          });
          assert.deepEqual(await store.getInstance(A, nextRef.id), nextRef);
          assert.deepEqual(await store.listTasksOfInstance(A, nextRef.id), next.tasks);
          await store.transaction((tx) => tx.completeInstance(A, root.id, 5));
          const again = referralOf(root, { id: newId(), vars: {}, onAllCompleted: null });
          const rows = { referral: again, tasks: [taskOf(again, { kind: "user", id: "u5" })] };
          assert.deepEqual(
            await store.complete({ tenantId: A, join, next: rows, task: t1, patch: patch("u1") }),
            notWritten("root"),
          );
          assert.deepEqual(await store.getTask(A, t1.id), t1);
          assert.equal(await store.getInstance(A, again.id), undefined);
        }));

      void it("20 last tasks completing at once: exactly one closes the referral and joins", () =>
        withStore(
          async (store) => {
            const { referral, tasks, join } = await seedJoin(store, 20);
            const results = await Promise.all(
              tasks.map((task, i) =>
                store.complete({ tenantId: A, join, next: null, task, patch: patch(`u${i}`) }),
              ),
            );
            assert.ok(results.every((r) => r.written));
            assert.equal(results.filter((r) => r.written && r.joined).length, 1);
            const closers = results.filter((r) => r.written && r.closed);
            assert.equal(closers.length, 1);
            assert.deepEqual(closers[0]?.written && closers[0].counts, {
              open: 0,
              claimed: 0,
              done: 20,
              cancelled: 0,
            });
            assert.equal((await store.getInstance(A, referral.id))?.status, "completed");
            assert.deepEqual(ids(await store.listChildren(A, referral.rootInstanceId)), [
              referral.id,
              join.referral.id,
            ]);
          },
          { poolSize: 22 },
        ));

      void it("complete next to a transaction cancelling the referral's tasks in id order (the durable bridge): no deadlock, one consistent outcome", () =>
        withStore(
          async (store) => {
            const { tasks, join } = await seedJoin(store, 2);
            const [a, b] = tasks as [Task, Task]; // ids are UUIDv7: a < b
            let aLocked!: () => void;
            const locked = new Promise<void>((r) => (aLocked = r));
            const cancel = { status: "cancelled", completedAt: 1, change: cancelledAt(1) } as const;
            const bridge = store.transaction(async (tx) => {
              await tx.updateTask(A, a.id, ["open", "claimed"], cancel);
              aLocked();
              await sleep(200);
              await tx.updateTask(A, b.id, ["open", "claimed"], cancel);
              await tx.completeInstance(A, a.instanceId, 1);
            });
            await locked;
            const [mine, theirs] = await Promise.allSettled([
              store.complete({ tenantId: A, join, next: null, task: b, patch: patch("u1") }),
              bridge,
            ]);
            assert.equal(mine.status, "fulfilled", String((mine as { reason?: unknown }).reason));
            assert.equal(
              theirs.status,
              "fulfilled",
              String((theirs as { reason?: unknown }).reason),
            );
            // Whoever wrote b first keeps it (PostgreSQL and SQLite: the cancellation, which
            // held a's lock first; MariaDB's completion does not wait for a): never both.
            const written = mine.status === "fulfilled" && mine.value.written;
            assert.equal((await store.getTask(A, b.id))?.status, written ? "done" : "cancelled");
            assert.equal(await store.getInstance(A, join.referral.id), undefined);
          },
          { poolSize: 4 },
        ));

      void it("completeAndEnd completes the task, cancels the tree's others and closes it", () =>
        withStore(async (store) => {
          const { root, referral, tasks } = await seedJoin(store, 3);
          const [t0, t1, t2] = tasks as [Task, Task, Task];
          const end = {
            tenantId: A,
            task: t0,
            patch: patch("u0", 50),
            othersCancelled: { ...cancelledAt(50), by: "u0", reason: "ended" },
          };
          assert.deepEqual(
            await store.completeAndEnd({
              ...end,
              task: { ...t0, status: "claimed", claimedBy: "x" },
            }),
            { written: false },
          );
          assert.deepEqual(await store.completeAndEnd(end), { written: true, cancelled: 2 });
          assert.deepEqual(await store.getTask(A, t0.id), {
            ...t0,
            ...omitChange(patch("u0", 50)),
          });
          for (const t of [t1, t2])
            assert.equal((await store.getTask(A, t.id))?.status, "cancelled");
          assert.equal((await store.getInstance(A, referral.id))?.status, "completed");
          const r = await store.getInstance(A, root.id);
          assert.deepEqual([r?.status, r?.processState], ["completed", "closed"]);
          assert.deepEqual(await store.completeAndEnd(end), { written: false });
        }));

      void it("claim and release write only from the state they expect", () =>
        withStore(async (store) => {
          const { referral } = await seedTree(store, A);
          const t = taskOf(referral, { kind: "group", id: "g1" });
          await insertTasks(store, [t]);
          const claim = { tenantId: A, taskId: t.id, claimedBy: "u1", claimedAt: 9 };
          assert.equal(await store.claim(claim), true);
          assert.equal(await store.claim({ ...claim, claimedBy: "u2" }), false);
          assert.deepEqual(await store.getTask(A, t.id), {
            ...t,
            status: "claimed",
            claimedBy: "u1",
            claimedAt: 9,
          });
          assert.equal(
            await store.release({ tenantId: A, taskId: t.id, claimedBy: "u2", at: 10 }),
            false,
          );
          assert.equal(
            await store.release({ tenantId: B, taskId: t.id, claimedBy: "u1", at: 10 }),
            false,
          );
          assert.equal(
            await store.release({ tenantId: A, taskId: t.id, claimedBy: "u1", at: 10 }),
            true,
          );
          assert.equal(
            await store.release({ tenantId: A, taskId: t.id, claimedBy: "u1", at: 10 }),
            false,
          );
          assert.deepEqual(await store.getTask(A, t.id), t);
          assert.equal(await store.claim({ ...claim, taskId: newId() }), false);
        }));

      void it("the trail: an event per change, in its transaction; a comment; no other tenant's", () =>
        withStore(async (store) => {
          const { root, referral } = await seedTree(store, A);
          const t = taskOf(referral, { kind: "group", id: "g1" });
          await insertTasks(store, [t]);
          const claim = { tenantId: A, taskId: t.id, claimedBy: "u1", claimedAt: 9 };
          assert.equal(await store.claim(claim), true);
          assert.equal(await store.claim({ ...claim, claimedBy: "u2" }), false, "writes nothing");
          assert.equal(await store.release({ ...claim, at: 10 }), true);
          assert.equal(await store.claim({ ...claim, claimedAt: 11 }), true);
          const note = { tenantId: A, taskId: t.id, actor: "u3", at: 12, text: "why?" };
          const c = await store.addComment(note);
          assert.equal(await store.addComment({ ...note, tenantId: B }), undefined);
          const claimed = { ...t, status: "claimed" as const, claimedBy: "u1" };
          await store.transaction((tx) => tx.completeTask(A, claimed, patch("u1", 20), false));
          // A change rolled back leaves no event.
          await assert.rejects(
            store.transaction(async (tx) => {
              await tx.updateTask(A, t.id, ["done"], {
                status: "cancelled",
                change: cancelledAt(30),
              });
              throw new Error("rolled back");
            }),
            /rolled back/,
          );
          const events = await store.listTaskEvents({ tenantId: A, taskId: t.id, limit: 100 });
          const row = (e: TaskEvent) =>
            [e.type, e.actor, e.at, e.status, e.claimedBy, e.action, e.comment] as const;
          assert.deepEqual(events.map(row), [
            ["created", "boss", t.createdAt, "open", null, null, null],
            ["claimed", "u1", 9, "claimed", "u1", null, null],
            ["released", "u1", 10, "open", null, null, null],
            ["claimed", "u1", 11, "claimed", "u1", null, null],
            ["commented", "u3", 12, "claimed", "u1", null, "why?"],
            ["completed", "u1", 20, "done", "u1", "approve", "by u1"],
          ]);
          assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq));
          assert.deepEqual(c, events[4]);
          assert.ok(
            events.every((e) => e.rootInstanceId === root.id && e.instanceId === referral.id),
          );
          // By process, and a page after a seq.
          const all = await store.listTaskEvents({
            tenantId: A,
            rootInstanceId: root.id,
            limit: 100,
          });
          assert.deepEqual(all, events);
          const rest = await store.listTaskEvents({
            tenantId: A,
            taskId: t.id,
            afterSeq: events[3]!.seq,
            limit: 1,
          });
          assert.deepEqual(rest, [events[4]]);
          assert.deepEqual(
            await store.listTaskEvents({ tenantId: B, taskId: t.id, limit: 100 }),
            [],
          );
          assert.deepEqual(
            await store.listTaskEvents({ tenantId: B, rootInstanceId: root.id, limit: 100 }),
            [],
          );
        }));

      void it("startProcess inserts the definition once and the root with the stored definition's id", () =>
        withStore(async (store) => {
          const d = definition(A, "trip");
          const root = rootOf(d, "u1");
          assert.deepEqual(
            await store.startProcess({ definition: d, definitionExists: false, root }),
            d,
          );
          assert.deepEqual(await store.getInstance(A, root.id), root);
          // Another candidate for the same key: the stored row wins.
          const late = definition(A, "trip", "Other name");
          const second = rootOf(late, "u2");
          assert.deepEqual(
            await store.startProcess({ definition: late, definitionExists: false, root: second }),
            d,
          );
          assert.equal((await store.getInstance(A, second.id))?.definitionId, d.id);
          const third = rootOf(d, "u3");
          await store.startProcess({ definition: d, definitionExists: true, root: third });
          assert.deepEqual(await store.getInstance(A, third.id), third);
        }));

      void it("assignNewTree inserts a referral that is its own root, with its tasks", () =>
        withStore(async (store) => {
          const d = definition(A, "solo");
          await store.startProcess({
            definition: d,
            definitionExists: false,
            root: rootOf(d, "u1"),
          });
          const base = rootOf(d, "u1");
          const referral: Instance = { ...referralOf(base), parentInstanceId: null };
          referral.rootInstanceId = referral.id;
          const tasks = [taskOf(referral, { kind: "user", id: "u1" })];
          await store.assignNewTree({ referral, tasks });
          assert.deepEqual(await store.getInstance(A, referral.id), referral);
          assert.deepEqual(await store.listTasksOfInstance(A, referral.id), tasks);
        }));

      void it("findTaskToComplete: the task and its referral's facts, within the tenant only", () =>
        withStore(async (store) => {
          const { referral } = await seedTree(store, A);
          const task = taskOf(referral, { kind: "user", id: "u1" });
          await insertTasks(store, [task]);
          const found = await store.findTaskToComplete(A, task.id);
          assert.deepEqual(found?.task, task);
          const r = found?.referral;
          assert.deepEqual(
            [r?.id, r?.parentInstanceId, r?.rootInstanceId, r?.startedBy, r?.onAllCompleted],
            [
              referral.id,
              referral.parentInstanceId,
              referral.rootInstanceId,
              referral.startedBy,
              referral.onAllCompleted,
            ],
          );
          assert.equal(await store.findTaskToComplete(B, task.id), undefined);
          assert.equal(await store.findTaskToComplete(A, newId()), undefined);
        }));
    });
  });

  void describe("inbox", () => {
    /** u1 is in g1 and g2. Returns the tasks in creation (= id) order, with the expected inbox. */
    async function seedInbox(store: Store) {
      const { referral } = await seedTree(store, A);
      const user = (id: string) => ({ kind: "user", id }) as const;
      const group = (id: string) => ({ kind: "group", id }) as const;
      const t = {
        own: taskOf(referral, user("u1")),
        g1: taskOf(referral, group("g1")),
        notMember: taskOf(referral, group("g3")),
        otherUser: taskOf(referral, user("u2")),
        claimedByMe: taskOf(referral, group("g2"), {
          status: "claimed",
          claimedBy: "u1",
          claimedAt: 1,
        }),
        claimedByOther: taskOf(referral, group("g1"), {
          status: "claimed",
          claimedBy: "u2",
          claimedAt: 1,
        }),
        doneOwn: taskOf(referral, user("u1"), {
          status: "done",
          completedBy: "u1",
          completedAt: 2,
        }),
        g2: taskOf(referral, group("g2")),
        cancelledOwn: taskOf(referral, user("u1"), { status: "cancelled", completedAt: 3 }),
        ownClaimed: taskOf(referral, user("u1"), {
          status: "claimed",
          claimedBy: "u1",
          claimedAt: 4,
        }),
        upperCaseGroup: taskOf(referral, group("G1")),
        upperCaseUser: taskOf(referral, user("U1")),
      };
      await insertTasks(store, Object.values(t));
      const expected = [t.own, t.g1, t.claimedByMe, t.g2, t.ownClaimed];
      return { t, expected };
    }
    const u1Query = {
      tenantId: A,
      assignees: [
        { kind: "user", id: "u1" },
        { kind: "group", id: "g1" },
        { kind: "group", id: "g2" },
      ] as { kind: "user" | "group"; id: string }[],
      claimedBy: "u1",
    };

    void it("unions own, group and claimed tasks in id order — ids compare case-sensitively", () =>
      withStore(async (store) => {
        const { expected } = await seedInbox(store);
        assert.deepEqual(await store.inbox({ ...u1Query, limit: 50 }), expected);
      }));

    void it("pages by id with `after`", () =>
      withStore(async (store) => {
        const { expected } = await seedInbox(store);
        const pages: Task[][] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.inbox({ ...u1Query, limit: 2, after });
          if (page.length === 0) break;
          assert.ok(page.length <= 2);
          pages.push(page);
          after = page.at(-1)!.id;
        }
        assert.deepEqual(pages.map(ids), [
          ids(expected.slice(0, 2)),
          ids(expected.slice(2, 4)),
          ids(expected.slice(4)),
        ]);
      }));

    void it("has a claimed-only form and a group form", () =>
      withStore(async (store) => {
        const { t } = await seedInbox(store);
        assert.deepEqual(
          ids(await store.inbox({ tenantId: A, assignees: [], claimedBy: "u1", limit: 50 })),
          [t.claimedByMe.id, t.ownClaimed.id],
        );
        assert.deepEqual(
          ids(
            await store.inbox({ tenantId: A, assignees: [{ kind: "group", id: "g1" }], limit: 50 }),
          ),
          [t.g1.id],
        );
        assert.deepEqual(await store.inbox({ tenantId: A, assignees: [], limit: 50 }), []);
        // A repeated assignee must not repeat its tasks.
        const twice = [{ kind: "group", id: "g1" } as const, { kind: "group", id: "g1" } as const];
        assert.deepEqual(ids(await store.inbox({ tenantId: A, assignees: twice, limit: 50 })), [
          t.g1.id,
        ]);
      }));

    void it("merges interleaved branches: each page is the globally smallest ids", () =>
      withStore(async (store) => {
        const { referral } = await seedTree(store, A);
        const groups = ["g1", "g2", "g3"];
        const tasks = Array.from({ length: 30 }, (_, i) =>
          taskOf(referral, { kind: "group", id: groups[i % 3]! }),
        );
        await insertTasks(store, tasks);
        const q = { tenantId: A, assignees: groups.map((id) => ({ kind: "group" as const, id })) };
        const p1 = await store.inbox({ ...q, limit: 7 });
        const p2 = await store.inbox({ ...q, limit: 7, after: p1.at(-1)!.id });
        assert.deepEqual(ids(p1), ids(tasks.slice(0, 7)));
        assert.deepEqual(ids(p2), ids(tasks.slice(7, 14)));
        const all = await store.inbox({ ...q, limit: 500 });
        assert.deepEqual(ids(all), ids(tasks));
      }));
  });

  void describe("listProcesses", () => {
    void it("lists the user's process roots in id order, filtered by state, keyset-paginated", () =>
      withStore(async (store) => {
        const d = definition(A, "p");
        const p1 = rootOf(d, "u1", "notStarted");
        const p2 = rootOf(d, "u1", "open");
        const p3 = rootOf(d, "u1", "closed");
        const p4 = rootOf(d, "u1", "open");
        const p5 = rootOf(d, "u2", "open");
        const ref = referralOf(p2); // startedBy u1, but a referral: never listed
        await store.transaction(async (tx) => {
          await tx.ensureDefinition(d);
          for (const i of [p1, p2, p3, p4, p5, ref]) await tx.insertInstance(i);
        });
        const q = { tenantId: A, startedBy: "u1" };
        assert.deepEqual(await store.listProcesses({ ...q, limit: 50 }), [p1, p2, p3, p4]);
        assert.deepEqual(
          ids(await store.listProcesses({ ...q, state: "open", limit: 50 })),
          ids([p2, p4]),
        );
        assert.deepEqual(ids(await store.listProcesses({ ...q, state: "notStarted", limit: 50 })), [
          p1.id,
        ]);
        assert.deepEqual(ids(await store.listProcesses({ ...q, state: "closed", limit: 50 })), [
          p3.id,
        ]);
        const page1 = await store.listProcesses({ ...q, limit: 2 });
        const page2 = await store.listProcesses({ ...q, limit: 2, after: page1.at(-1)!.id });
        assert.deepEqual([...ids(page1), ...ids(page2)], ids([p1, p2, p3, p4]));
        assert.deepEqual(await store.listProcesses({ ...q, limit: 2, after: p4.id }), []);
        assert.deepEqual(
          ids(await store.listProcesses({ ...q, state: "open", limit: 1, after: p2.id })),
          [p4.id],
        );
      }));
  });

  void describe("tenant isolation", () => {
    void it("a row of tenant A is invisible and untouchable from tenant B", () =>
      withStore(async (store) => {
        const { d, root, referral } = await seedTree(store, A, "u1");
        const open = taskOf(referral, { kind: "user", id: "u1" });
        const claimed = taskOf(
          referral,
          { kind: "group", id: "g1" },
          { status: "claimed", claimedBy: "u1", claimedAt: 1 },
        );
        await insertTasks(store, [open, claimed]);
        const before = {
          root: await store.getInstance(A, root.id),
          referral: await store.getInstance(A, referral.id),
          tasks: await store.listTasksOfInstance(A, referral.id),
        };

        assert.equal(await store.getDefinition(B, d.key), undefined);
        assert.deepEqual(await store.listDefinitions(B, { limit: 50 }), []);
        assert.equal(await store.getInstance(B, root.id), undefined);
        assert.deepEqual(await store.listChildren(B, root.id), []);
        assert.equal(await store.getTask(B, open.id), undefined);
        assert.deepEqual(await store.listTasksOfInstance(B, referral.id), []);
        assert.deepEqual(await store.countTasksByStatus(B, referral.id), {
          open: 0,
          claimed: 0,
          done: 0,
          cancelled: 0,
        });
        assert.deepEqual(
          await store.inbox({
            tenantId: B,
            assignees: [
              { kind: "user", id: "u1" },
              { kind: "group", id: "g1" },
            ],
            claimedBy: "u1",
            limit: 50,
          }),
          [],
        );
        assert.deepEqual(
          await store.listProcesses({ tenantId: B, startedBy: "u1", limit: 50 }),
          [],
        );

        await store.transaction(async (tx) => {
          assert.equal(await tx.lockInstance(B, root.id), undefined);
          assert.equal(await tx.lockTask(B, open.id), undefined);
          assert.equal(await tx.updateTask(B, open.id, ["open"], { status: "done" }), false);
          assert.equal(await tx.markJoined(B, referral.id, 9), false);
          assert.equal(await tx.cancelOpenTasksOfRoot(B, root.id, "none", cancelledAt(9)), 0);
          await tx.completeInstance(B, referral.id, 9);
          await tx.setProcessState(B, root.id, "closed");
          await tx.completeTree(B, root.id, 9);
          // The same key in tenant B is a different definition.
          const bDef = definition(B, d.key);
          assert.deepEqual(await tx.ensureDefinition(bDef), bDef);
        });

        assert.deepEqual(await store.getInstance(A, root.id), before.root);
        assert.deepEqual(await store.getInstance(A, referral.id), before.referral);
        assert.deepEqual(await store.listTasksOfInstance(A, referral.id), before.tasks);
        assert.deepEqual(await store.getDefinition(A, d.key), d);
        assert.deepEqual(await store.listDefinitions(A, { limit: 50 }), [d]);
      }));
  });
}

// ------------------------------------------------------------ createStore

void describe("createStore", () => {
  void it("rejects an unsupported scheme with a Validation error naming DATABASE_URL", () => {
    for (const url of ["redis://localhost:6379", "mongodb://x/y", "./taskflow.db"]) {
      assert.throws(
        () => createStore(url),
        (e) =>
          e instanceof TaskflowError &&
          e.code === "Validation" &&
          e.message.includes("DATABASE_URL"),
        url,
      );
    }
  });

  void it("accepts every documented URL form without connecting", async () => {
    const forms: [string, string][] = [
      ["sqlite::memory:", "sqlite"],
      ["postgres://u:p@nowhere.invalid:5432/db", "postgres"],
      ["postgresql://u:p@nowhere.invalid:5432/db", "postgres"],
      ["mysql://u:p@nowhere.invalid:3306/db", "mysql"],
      ["mariadb://u:p@nowhere.invalid:3306/db", "mysql"],
    ];
    for (const [url, dialect] of forms) {
      const database = openDatabase(url);
      assert.equal(database.backend, dialect);
      await database.close();
    }
  });

  void it("creates a missing directory for an SQLite file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "taskflow-dir-"));
    try {
      const file = join(dir, "a", "b", "flow.db");
      const store = createStore(`sqlite:${file}`);
      try {
        await store.migrate();
      } finally {
        await store.close();
      }
      assert.ok(existsSync(file));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const url of ["postgres://tf:s3cret@127.0.0.1:1/db", "mysql://tf:s3cret@127.0.0.1:1/db"]) {
    void it(`surfaces an unreachable server on migrate(), naming DATABASE_URL without the password (${url.split(":")[0]})`, async () => {
      const store = createStore(url);
      try {
        await assert.rejects(store.migrate(), (e: Error) => {
          assert.match(e.message, /DATABASE_URL/);
          assert.match(e.message, /127\.0\.0\.1:1/);
          assert.match(e.message, /ECONNREFUSED/);
          assert.doesNotMatch(e.message, /s3cret/);
          return true;
        });
      } finally {
        await store.close();
      }
    });
  }
});

// --------------------------------------------------------------- backends

for (const backend of backends) {
  void describe(`Store contract: ${backend.name}`, await backendTestOptions(backend), () =>
    registerStoreCases(backend),
  );
}
