/**
 * wakeRunsOnCompletion (src/engine/durable/human-task-bridge.ts) without a
 * database: finishing a task of a run's referral signals the run and calls
 * onWake, through complete and completeAndEnd alike; every other use case is
 * passed through untouched. On real stores: completion-hint.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Instance } from "../../../src/domain/instance.ts";
import type { Task } from "../../../src/domain/task.ts";
import { RUN_TAG, wakeRunsOnCompletion } from "../../../src/engine/durable/human-task-bridge.ts";
import type { RunStore } from "../../../src/engine/durable/run-store-port.ts";
import type { HumanTaskApi } from "../../../src/engine/human-tasks/human-task-api.ts";
import type { TaskStore as Store } from "../../../src/engine/human-tasks/task-store-port.ts";

const T = "t1";
const ctx = { tenantId: T, actorId: "bob" };

const instances: Record<string, Partial<Instance>> = {
  "run-root": { kind: "process", vars: { runId: "run-1" } },
  referral: { kind: "referral", vars: { [RUN_TAG]: { runId: "run-1", seq: 0, name: "ok" } } },
  "plain-root": { kind: "process", vars: {} },
  "plain-referral": { kind: "referral", vars: {} },
};
const task = (instanceId: string, rootInstanceId: string) =>
  ({ instanceId, rootInstanceId }) as Task;
/** Which task each fake completion finishes, by task id. */
const tasks: Record<string, Task> = {
  "run-task": task("referral", "run-root"),
  "plain-task": task("plain-referral", "plain-root"),
  "started-task": task("started-referral", "started-root"),
};

/** The decorator over fakes, with every call the fakes saw. */
function setUp(opts: { signalFails?: boolean } = {}) {
  const calls: { method: string; args: unknown[] }[] = [];
  const reads: string[] = [];
  const signals: { runId: string; name: string }[] = [];
  let wakes = 0;
  const answer =
    (method: string) =>
    (...args: unknown[]) => {
      calls.push({ method, args });
      if (method === "start")
        return Promise.resolve({ definitionKey: "p", instanceId: "started-root" });
      if (method === "complete" || method === "completeAndEnd") {
        return Promise.resolve({ task: tasks[args[1] as string] });
      }
      return Promise.resolve(`${method} result`);
    };
  const inner = Object.fromEntries(
    [
      "start",
      "assign",
      "claim",
      "release",
      "complete",
      "completeAndEnd",
      "getTask",
      "userInbox",
      "groupInbox",
      "getInstance",
      "completion",
      "listProcesses",
      "listDefinitions",
      "getDefinition",
    ].map((m) => [m, answer(m)]),
  ) as unknown as HumanTaskApi;
  const store = {
    getInstance: (_tenantId: string, id: string) => {
      reads.push(id);
      return Promise.resolve(instances[id] as Instance | undefined);
    },
  } as unknown as Store;
  const runs = {
    sendSignal: (_tenantId: string, runId: string, s: { name: string }) => {
      if (opts.signalFails) return Promise.reject(new Error("store down"));
      signals.push({ runId, name: s.name });
      return Promise.resolve(true);
    },
  } as unknown as RunStore;
  const api = wakeRunsOnCompletion(inner, store, runs, () => wakes++);
  return { api, calls, reads, signals, wakes: () => wakes };
}

test("completing a task of a run's referral signals the run and calls onWake", async () => {
  const s = setUp();
  const r = await s.api.complete(ctx, "run-task", {});
  assert.equal(r.task, tasks["run-task"]);
  assert.deepEqual(s.signals, [{ runId: "run-1", name: "__task:referral" }]);
  assert.equal(s.wakes(), 1);
});

test("complete-and-end of a task of a run's referral signals the run and calls onWake", async () => {
  const s = setUp();
  await s.api.completeAndEnd(ctx, "run-task", {});
  assert.deepEqual(s.signals, [{ runId: "run-1", name: "__task:referral" }]);
  assert.equal(s.wakes(), 1);
});

test("completing a task outside any run signals nothing; the root's answer is remembered", async () => {
  const s = setUp();
  await s.api.complete(ctx, "plain-task", {});
  await s.api.complete(ctx, "plain-task", {});
  assert.deepEqual(s.signals, []);
  assert.equal(s.wakes(), 0);
  assert.deepEqual(s.reads, ["plain-root"], "one read of the root, then known");
});

test("a process started through the decorator is known to be no run's root: no read", async () => {
  const s = setUp();
  const started = await s.api.start(ctx, { processKey: "p" });
  assert.equal(started.instanceId, "started-root");
  await s.api.completeAndEnd(ctx, "started-task", {});
  assert.deepEqual(s.reads, []);
  assert.deepEqual(s.signals, []);
});

test("a wake-up that fails is lost quietly: the completion still succeeds", async () => {
  const s = setUp({ signalFails: true });
  const r = await s.api.complete(ctx, "run-task", {});
  assert.equal(r.task, tasks["run-task"]);
  assert.equal(s.wakes(), 0);
});

test("every other use case is passed through with its arguments and result", async () => {
  const s = setUp();
  const page = { limit: 5 };
  const created = { from: 1, until: 2 };
  const results = [
    await s.api.assign(ctx, { parentInstanceId: "p", assignee: { kind: "user", id: "u" } }),
    await s.api.claim(ctx, "t"),
    await s.api.release(ctx, "t"),
    await s.api.getTask(ctx, "t"),
    await s.api.userInbox(ctx, "u", page, "completed"),
    await s.api.groupInbox(ctx, "g", page, "all"),
    await s.api.getInstance(ctx, "i"),
    await s.api.completion(ctx, "i"),
    await s.api.listProcesses(ctx, "u", "open", page, created),
    await s.api.listDefinitions(ctx, page),
    await s.api.getDefinition(ctx, "k"),
  ] as unknown[];
  const methods = s.calls.map((c) => c.method);
  assert.deepEqual(
    results,
    methods.map((m) => `${m} result`),
  );
  assert.deepEqual(s.calls.at(-3)!.args, [ctx, "u", "open", page, created]);
  assert.deepEqual(s.calls[4]!.args, [ctx, "u", page, "completed"]);
  assert.deepEqual(s.calls[5]!.args, [ctx, "g", page, "all"]);
  assert.equal(methods.length, 11);
  assert.deepEqual(s.signals, []);
});
