/**
 * A definition's run is one process on every store: a `parallel` branch's
 * tasks sit under the process that the start returned (its key, its root),
 * a sub-process's under a process of the child definition's own key, and no
 * list or task shows the interpreter's internal workflow name. A branch that
 * finishes leaves the process open; the run's finish closes it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Task } from "../../src/domain/task.ts";
import { DEFINITION_RUN } from "../../src/engine/definitions/interpreter/run-input.ts";
import { backends, backendTestOptions } from "../support/backends.ts";
import { interpreterOn, TENANT } from "./support/interpreter-env.ts";

const ALICE = { tenantId: TENANT, actorId: "alice" };

const userTask = (title: string, user: string) => ({
  start: "t",
  states: {
    t: { type: "userTask", assignee: { user }, title, next: "e" },
    e: { type: "end" },
  },
});

for (const backend of backends) {
  void describe(`process membership: ${backend.name}`, await backendTestOptions(backend), () => {
    let env: Awaited<ReturnType<typeof interpreterOn>>;
    before(async () => {
      env = await interpreterOn(backend);
    });
    after(async () => {
      await env?.close();
    });

    test("branches' tasks under the process, a sub-process under its own key", async () => {
      await env.publish({ key: "pm-child", name: "Child", ...userTask("Child step", "carol") });
      await env.publish({
        key: "pm-fork",
        name: "Fork",
        start: "both",
        states: {
          both: {
            type: "parallel",
            branches: [userTask("Left", "bob"), userTask("Right", "bob")],
            next: "sub",
          },
          sub: { type: "subProcess", definition: "pm-child", next: "done" },
          done: { type: "end" },
        },
      });
      const started = await env.node.start(ALICE, { key: "pm-fork", vars: { n: 1 } });
      await settle(env);
      const branchTasks = await env.openTasks("bob");
      assert.equal(branchTasks.length, 2);
      for (const t of branchTasks) {
        assert.equal(t.rootInstanceId, started.instanceId, `task ${t.id}: under the process`);
        assert.equal(t.definitionKey, "pm-fork");
      }
      await assertNoInternalName(env, branchTasks);

      await env.complete("bob", branchTasks[0]!.id, {});
      await settle(env);
      const root = await env.engine.getInstance({ tenantId: TENANT }, started.instanceId);
      assert.equal(root.status, "running", "a finished branch leaves the process open");
      assert.equal((await env.openTasks("bob")).length, 1);

      await env.complete("bob", branchTasks[1]!.id, {});
      await settle(env);
      const [childTask] = await env.openTasks("carol");
      assert.ok(childTask, "the sub-process assigned its task");
      assert.equal(childTask.definitionKey, "pm-child", "the child definition's key");
      assert.notEqual(childTask.rootInstanceId, started.instanceId);
      const child = await env.engine.getInstance({ tenantId: TENANT }, childTask.rootInstanceId);
      assert.equal(child.definitionKey, "pm-child");
      await assertNoInternalName(env, [childTask]);

      await env.complete("carol", childTask.id, {});
      await settle(env);
      assert.equal((await env.run(started.runId)).status, "completed");
      const done = await env.engine.getInstance({ tenantId: TENANT }, started.instanceId);
      assert.equal(done.status, "completed", "the run's finish closes its process");
      const listed = await processesOf(env);
      assert.deepEqual(
        listed.map((p) => p.definitionKey).sort(),
        ["pm-child", "pm-fork"],
        "one process for the run, one for the sub-process: none per branch",
      );
    });
  });
}

/**
 * Runs what is due. A completion wakes its run at the wall clock's now, ahead of
 * the harness clock by the test's duration so far: a second covers it, far
 * short of the runs' re-check (a lost wake-up would leave the run parked).
 */
async function settle(env: Awaited<ReturnType<typeof interpreterOn>>): Promise<void> {
  env.h.clock.advance(1000);
  await env.h.drain();
}

async function processesOf(env: Awaited<ReturnType<typeof interpreterOn>>) {
  const page = await env.engine.listProcesses({ tenantId: TENANT }, "alice", undefined, {
    limit: 100,
  });
  return page.items;
}

async function assertNoInternalName(
  env: Awaited<ReturnType<typeof interpreterOn>>,
  tasks: readonly Task[],
): Promise<void> {
  for (const t of tasks) assert.notEqual(t.definitionKey, DEFINITION_RUN);
  for (const p of await processesOf(env)) {
    assert.notEqual(p.definitionKey, DEFINITION_RUN, `process ${p.id} shows the internal name`);
  }
}
