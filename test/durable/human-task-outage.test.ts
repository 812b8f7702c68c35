/**
 * A store outage during ctx.humanTask is not the workflow's failure: an inbox
 * call (through the human-task bridge) that rejects stops the execution like a
 * failed run-store call does, the run is released, and a later execution
 * replays it and completes with the human task's result. A deliberate domain
 * error of the inbox (a bad assignee) still fails the call, and the run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createDirectory } from "../../src/adapters/directory/create-directory.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { UnavailableError } from "../../src/domain/unavailable.ts";
import { executeRun } from "../../src/engine/durable/executor.ts";
import {
  humanTaskBridge,
  wakeRunsOnCompletion,
  type HumanTaskBridge,
} from "../../src/engine/durable/human-task-bridge.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import type { RunStore } from "../../src/engine/durable/run-store-port.ts";
import { HumanTaskEngine } from "../../src/engine/human-tasks/human-task-engine.ts";
import { workflow } from "../../src/workflow.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.ts";

const T = "t1";

const approve = workflow("approve", async (ctx) => {
  const r = await ctx.humanTask("ok", {
    assignee: { kind: "users", ids: ["bob", "carol"] },
    policy: "any",
  });
  return `${r.action} by ${r.completedBy}`;
});

const noOne = workflow("no-one", async (ctx) => {
  await ctx.humanTask("ok", { assignee: { kind: "users", ids: [] } });
  return "assigned";
});

type Method = keyof HumanTaskBridge;

/** The real bridge, except that the next call of each method in `failNext` rejects as a dropped connection does. */
function flaky(bridge: HumanTaskBridge, failNext: Set<Method>): HumanTaskBridge {
  const gate = <R>(m: Method, call: () => Promise<R>): Promise<R> =>
    failNext.delete(m) ? Promise.reject(new UnavailableError("connection lost")) : call();
  return {
    findReferral: (...a) => gate("findReferral", () => bridge.findReferral(...a)),
    ensureReferral: (...a) => gate("ensureReferral", () => bridge.ensureReferral(...a)),
    assign: (...a) => gate("assign", () => bridge.assign(...a)),
    tasksOf: (...a) => gate("tasksOf", () => bridge.tasksOf(...a)),
    cancelUnfinished: (...a) => gate("cancelUnfinished", () => bridge.cancelUnfinished(...a)),
  };
}

/**
 * A fresh database of `b`: the run store on a direct connection, the inbox on
 * `inboxUrl(url)` (a fault proxy, so only the bridge's calls see the fault).
 */
async function inboxOn(b: Backend, inboxUrl: (url: string) => string | Promise<string> = (u) => u) {
  const db = await createTestDatabase(b);
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: await inboxUrl(db.url),
      apiKeys: ["k-0123456789abcdefghijkl"],
      logLevel: "silent",
    },
  });
  const runStore = openDatabase(db.url);
  await runStore.migrate();
  // SQLite is one file: a second store on it would only add lock waits.
  const inboxDb = b.name === "sqlite" ? runStore : openDatabase(config.databaseUrl);
  const store = inboxDb.tasks;
  const engine = new HumanTaskEngine({ store, directory: createDirectory(config) });
  return {
    runs: runStore.runs,
    bridge: humanTaskBridge(store, engine),
    inbox: wakeRunsOnCompletion(engine, store, runStore.runs),
    close: async () => {
      if (inboxDb !== runStore) await inboxDb.close();
      await runStore.close();
      await db.drop();
    },
  };
}

/**
 * Claims the due run and executes it once, as the worker does: an execution that
 * rejects (a store failure) is released for a later one. Its outcome, or "halted".
 */
async function executeOnce(runs: RunStore, bridge: HumanTaskBridge): Promise<string> {
  // The real clock: the wake-up of a task completion is stamped with it.
  const now = Date.now();
  const [run] = await runs.claimRuns("w1", now, now + 5_000, 1);
  if (run === undefined) return "nothing due";
  try {
    return await executeRun(run, {
      store: runs,
      registry: new WorkflowRegistry([approve, noOne]),
      owner: "w1",
      contextOptions: { inMemoryWaitMs: 0, humanTasks: bridge },
    });
  } catch (e) {
    await runs.release({ tenantId: run.tenantId, runId: run.id, owner: "w1" }, Date.now());
    return `halted: ${(e as Error).name}`;
  }
}

async function start(runs: RunStore, workflowName: string) {
  await runs.createRun({
    tenantId: T,
    id: "r1",
    workflow: workflowName,
    input: null,
    parentRunId: null,
    startedBy: "alice",
    now: Date.now(),
  });
}

async function bobApproves(env: Awaited<ReturnType<typeof inboxOn>>) {
  const [task] = (await env.inbox.userInbox({ tenantId: T }, "bob", {})).items;
  await env.inbox.complete({ tenantId: T, actorId: "bob" }, task!.id, {
    vars: { action: "approve" },
  });
}

for (const b of backends) {
  test(
    `an inbox call of ctx.humanTask that loses its connection halts the run; the replay completes (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const env = await inboxOn(b);
      try {
        const failNext = new Set<Method>(["ensureReferral"]);
        const bridge = flaky(env.bridge, failNext);
        await start(env.runs, "approve");

        assert.equal(await executeOnce(env.runs, bridge), "halted: UnavailableError");
        assert.notEqual((await env.runs.getRun(T, "r1"))!.status, "failed");
        assert.equal(await executeOnce(env.runs, bridge), "waiting");

        await bobApproves(env);
        // Reading the tasks fails, then cancelling carol's unfinished one (policy "any").
        failNext.add("tasksOf");
        assert.equal(await executeOnce(env.runs, bridge), "halted: UnavailableError");
        failNext.add("cancelUnfinished");
        assert.equal(await executeOnce(env.runs, bridge), "halted: UnavailableError");
        assert.equal(await executeOnce(env.runs, bridge), "completed");

        const run = (await env.runs.getRun(T, "r1"))!;
        assert.equal(run.output, "approve by bob");
        assert.equal(run.error, null);
        const carols = await env.inbox.userInbox({ tenantId: T }, "carol", {});
        assert.equal(carols.items.length, 0, "carol's task was cancelled once the policy was met");
      } finally {
        await env.close();
      }
    },
  );
}

for (const b of backends) {
  test(
    `a bad assignee in ctx.humanTask stays the workflow's error: the run fails (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const env = await inboxOn(b);
      try {
        await start(env.runs, "no-one");
        assert.equal(await executeOnce(env.runs, env.bridge), "failed");
        const run = (await env.runs.getRun(T, "r1"))!;
        assert.equal(run.error?.name, "TaskflowError");
        assert.match(run.error?.message ?? "", /assignee\.ids must list/);
      } finally {
        await env.close();
      }
    },
  );
}

const postgres = backends.find((b) => b.name === "postgres")!;

test(
  "the inbox's database connections drop during ctx.humanTask: the run halts, then completes (postgres, fault proxy)",
  await backendTestOptions(postgres),
  async () => {
    let proxy: FaultProxy | undefined;
    const env = await inboxOn(postgres, async (url) => {
      const u = new URL(url);
      proxy = await startFaultProxy(u.hostname, Number(u.port));
      return proxy.urlFor(url);
    });
    const net = proxy!;
    /** Every inbox connection cut and new ones refused while `fn` runs, as a database restart. */
    const down = async <R>(fn: () => Promise<R>): Promise<R> => {
      net.refuse(true);
      net.cut();
      try {
        return await fn();
      } finally {
        net.refuse(false);
      }
    };
    try {
      await start(env.runs, "approve");
      const once = () => executeOnce(env.runs, env.bridge);

      assert.equal(await down(once), "halted: UnavailableError");
      assert.notEqual((await env.runs.getRun(T, "r1"))!.status, "failed");
      assert.equal(await once(), "waiting");
      await bobApproves(env);
      assert.equal(await down(once), "halted: UnavailableError");
      assert.equal(await once(), "completed");
      assert.equal((await env.runs.getRun(T, "r1"))!.output, "approve by bob");
    } finally {
      await env.close();
      await net.close();
    }
  },
);
