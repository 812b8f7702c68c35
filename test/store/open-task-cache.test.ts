/**
 * Completing a task this process created needs no read first (OpenTaskCache),
 * and what the cache remembers is never trusted over the database: a task
 * changed by another node since is completed, or refused, exactly as without
 * the cache. Two engines, each with its own store (and so its own cache), on
 * one PostgreSQL database play two nodes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { OpenDirectory } from "../../src/adapters/directory/open-directory.ts";
import { createStore } from "../../src/adapters/store/create-store.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import { newId } from "../../src/domain/ids.ts";
import { openTask, type Task } from "../../src/domain/task.ts";
import { HumanTaskEngine } from "../../src/engine/human-tasks/human-task-engine.ts";
import { OpenTaskCache } from "../../src/adapters/store/task-store/open-task-cache.ts";
import type { StandaloneStore as Store } from "../../src/adapters/store/create-store.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";
import { NO_TASK_DETAILS } from "../../src/domain/task-details.ts";

const A = { tenantId: "t-a", actorId: "alice" };

function task(id: string, over: Partial<Task> = {}): Task {
  return {
    ...openTask({
      ...NO_TASK_DETAILS,
      id,
      tenantId: A.tenantId,
      instanceId: "i",
      rootInstanceId: "r",
      definitionKey: "d",
      assigneeKind: "user",
      assigneeId: "bob",
      assignedBy: "alice",
      createdAt: 1,
    }),
    ...over,
  };
}
const referral = {
  id: "i",
  tenantId: A.tenantId,
  definitionKey: "d",
  parentInstanceId: "r",
  rootInstanceId: "r",
  startedBy: "alice",
  onAllCompleted: null,
};

void describe("OpenTaskCache", () => {
  void it("hands an entry out once, per tenant, and keeps open user tasks only", () => {
    const c = new OpenTaskCache();
    c.put({ task: task("t1"), referral });
    c.put({ task: task("g1", { assigneeKind: "group", assigneeId: "g" }), referral });
    c.put({ task: task("c1", { status: "claimed", claimedBy: "bob" }), referral });
    assert.equal(c.size, 1);
    assert.equal(c.take("t-b", "t1"), undefined);
    assert.equal(c.take(A.tenantId, "t1")?.task.id, "t1");
    assert.equal(c.take(A.tenantId, "t1"), undefined);
  });

  void it("drops the oldest entry when full", () => {
    const c = new OpenTaskCache(2);
    for (const id of ["t1", "t2", "t3"]) c.put({ task: task(id), referral });
    assert.equal(c.size, 2);
    assert.equal(c.take(A.tenantId, "t1"), undefined);
    assert.equal(c.take(A.tenantId, "t3")?.task.id, "t3");
  });
});

void describe(
  "completing a task created here",
  await backendTestOptions({ name: "postgres" }),
  () => {
    let store: Store;
    let storeB: Store;
    let drop: () => Promise<void>;
    let reads = 0;
    let nodeA: HumanTaskEngine;
    let nodeB: HumanTaskEngine;

    before(async () => {
      const db = await createTestDatabase({ name: "postgres" });
      drop = () => db.drop();
      store = createStore(db.url);
      await store.migrate();
      storeB = createStore(db.url);
      // Counts the reads node A's store makes for a completion (its cache misses).
      const read = store.getTaskWithInstance.bind(store);
      store.getTaskWithInstance = (tenantId, taskId) => {
        reads++;
        return read(tenantId, taskId);
      };
      const directory = new OpenDirectory();
      nodeA = new HumanTaskEngine({ store, directory });
      nodeB = new HumanTaskEngine({ store: storeB, directory });
    });

    after(async () => {
      await storeB.close();
      await store.close();
      await drop();
    });

    async function assigned(users: string[]) {
      const { instanceId } = await nodeA.start(A, { processKey: `p-${newId()}` });
      return nodeA.assign(A, {
        parentInstanceId: instanceId,
        assignee: { kind: "users", ids: users },
        onAllCompleted: { assignee: { kind: "user", id: "carol" } },
      });
    }

    void it("reads nothing before the statement, and answers as the database has it", async () => {
      const a = await assigned(["bob", "dan"]);
      reads = 0;
      const [t0, t1] = a.tasks as [Task, Task];
      const r0 = await nodeA.complete({ ...A, actorId: "bob" }, t0.id, { vars: { ok: 1 } });
      const r1 = await nodeA.complete({ ...A, actorId: "dan" }, t1.id, {});
      assert.equal(reads, 0);
      assert.deepEqual(r0.task, await store.getTask(A.tenantId, t0.id));
      assert.deepEqual(r1.task, await store.getTask(A.tenantId, t1.id));
      assert.equal(r0.completion.allCompleted, false);
      assert.equal(r1.completion.allCompleted, true);
      // The join ran once, and its task (created here too) completes without a read.
      assert.ok(r1.joined);
      const carol = r1.joined.task;
      const r2 = await nodeA.complete({ ...A, actorId: "carol" }, carol.id, {});
      assert.equal(reads, 0);
      assert.deepEqual(r2.task, await store.getTask(A.tenantId, carol.id));
    });

    void it("a task claimed on another node since: completed with its claim as stored", async () => {
      const a = await assigned(["bob"]);
      const claimed = await nodeB.claim({ ...A, actorId: "bob" }, a.task.id);
      const r = await nodeA.complete({ ...A, actorId: "bob" }, a.task.id, {});
      assert.equal(r.task.claimedBy, "bob");
      assert.equal(r.task.claimedAt, claimed.claimedAt);
      assert.deepEqual(r.task, await store.getTask(A.tenantId, a.task.id));
    });

    void it("a task completed on another node since: NotOpen, nothing written twice", async () => {
      const a = await assigned(["bob"]);
      const first = await nodeB.complete({ ...A, actorId: "bob" }, a.task.id, { vars: { n: 1 } });
      await assert.rejects(
        nodeA.complete({ ...A, actorId: "bob" }, a.task.id, { vars: { n: 2 } }),
        (e: unknown) => e instanceof TaskflowError && e.code === "NotOpen",
      );
      assert.deepEqual(await store.getTask(A.tenantId, a.task.id), first.task);
      const children = await store.listChildren(A.tenantId, a.task.rootInstanceId);
      assert.equal(children.length, 2); // the referral and one join
    });

    void it("another actor is Forbidden; the assignee still completes afterwards", async () => {
      const a = await assigned(["bob"]);
      await assert.rejects(
        nodeA.complete({ ...A, actorId: "eve" }, a.task.id, {}),
        (e: unknown) => e instanceof TaskflowError && e.code === "Forbidden",
      );
      const r = await nodeA.complete({ ...A, actorId: "bob" }, a.task.id, {});
      assert.equal(r.task.status, "done");
    });

    void it("another tenant cannot reach the task", async () => {
      const a = await assigned(["bob"]);
      await assert.rejects(
        nodeA.complete({ tenantId: "t-b", actorId: "bob" }, a.task.id, {}),
        (e: unknown) => e instanceof TaskflowError && e.code === "NotFound",
      );
      const r = await nodeA.complete({ ...A, actorId: "bob" }, a.task.id, {});
      assert.equal(r.task.status, "done");
    });
  },
);
