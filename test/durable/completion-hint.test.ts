/**
 * wakeRunsOnCompletion (src/engine/durable/human-task-bridge.ts): finishing a
 * task wakes the run that owns its root, and costs no read when the root is
 * known — a process this node started is never a run's root. On every backend.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createDirectory } from "../../src/adapters/directory/create-directory.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../src/config/index.ts";
import { wakeRunsOnCompletion } from "../../src/engine/durable/human-task-bridge.ts";
import type { HumanTaskApi } from "../../src/engine/human-tasks/human-task-api.ts";
import { HumanTaskEngine } from "../../src/engine/human-tasks/human-task-engine.ts";
import type { TaskStore as Store } from "../../src/engine/human-tasks/task-store-port.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";

const T = "tenant-h";

/** The store with its getInstance calls counted (the hint's only read of the root). */
function counting(store: Store): { store: Store; reads: string[] } {
  const reads: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop === "getInstance") {
        return (tenantId: string, id: string) => {
          reads.push(id);
          return target.getInstance(tenantId, id);
        };
      }
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, reads };
}

for (const b of backends) {
  test(
    `completion hint: no read for a process started here, one for a root it has not seen (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const db = await createTestDatabase(b);
      const config = loadConfig({
        env: {},
        overrides: {
          databaseUrl: db.url,
          apiKeys: ["k-0123456789abcdefghijkl"],
          logLevel: "silent",
        },
      });
      const database = openDatabase(config.databaseUrl);
      const store = database.tasks;
      try {
        await database.migrate();
        const runs = database.runs;
        const engine = new HumanTaskEngine({ store, directory: createDirectory(config) });
        const counted = counting(store);
        const here = wakeRunsOnCompletion(engine, counted.store, runs);
        const ctx = (actorId: string) => ({ tenantId: T, actorId });

        const cycle = async (api: HumanTaskApi) => {
          const p = await api.start(ctx("ann"), { processKey: "hint" });
          const a = await api.assign(ctx("ann"), {
            parentInstanceId: p.instanceId,
            assignee: { kind: "users", ids: ["u1", "u2"] },
          });
          for (const t of a.tasks) await here.complete(ctx(t.assigneeId), t.id, {});
          return p.instanceId;
        };
        // Started through the wrapped engine: its completions read nothing.
        const mine = await cycle(here);
        assert.deepEqual(counted.reads, []);
        // Started elsewhere (another node, here the bare engine): one read, then known.
        const foreign = await cycle(engine);
        assert.deepEqual(counted.reads, [foreign]);
        assert.notEqual(mine, foreign);

        // A run's root is still recognised: completing its referral's task signals the run.
        const { run } = await runs.createRun({
          tenantId: T,
          id: "run-1",
          workflow: "wf",
          input: null,
          parentRunId: null,
          startedBy: "ann",
          now: Date.now(),
        });
        const a = await engine.assign(ctx("ann"), {
          parentInstanceId: run.rootInstanceId!,
          assignee: { kind: "user", id: "u1" },
          vars: { taskflowRun: { runId: "run-1", seq: 0, name: "ok" } },
        });
        await here.complete(ctx("u1"), a.task.id, {});
        const sig = await runs.peekSignal(T, "run-1", `__task:${a.instanceId}`);
        assert.notEqual(sig, undefined, "the run got its wake-up signal");
      } finally {
        await database.close();
        await db.drop();
      }
    },
  );
}
