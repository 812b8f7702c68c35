/**
 * TaskFlow embedded the intended way: createTaskflow(config, { workflows,
 * worker }) in this process (its HTTP server is built but never listens). A
 * run started through `tf.runs.start` is inserted already leased to the local
 * worker and executed at once; the worker's onOutcome hook (called after the
 * terminal status has committed) tells the bench that the run has completed.
 */
import { createTaskflow, loadConfig, workflow, type Taskflow } from "taskflow";
import { expectedOutput, type DurableEngine } from "./durable-engine.ts";

const TENANT = "bench";

export const bench3 = workflow("bench3", async (ctx, input: { i: number }) => {
  const a = await ctx.step("a", () => input.i + 1);
  const b = await ctx.step("b", () => a * 2);
  return ctx.step("c", () => `r${b}`);
});

/** A run not completed this long after its start counts as an error (keeps the bench bounded). */
const RUN_TIMEOUT_MS = 30_000;

/**
 * Completion latch keyed by run id; tolerates the outcome arriving before the
 * waiter. A "lost" outcome is not the end of a run: the worker dropped it (its
 * lease looked lost) and any worker claims it again once the lease expires, so
 * the waiter keeps waiting for the terminal outcome and the loss is counted.
 */
class Completions {
  private readonly waiters = new Map<string, { resolve(): void; reject(e: Error): void }>();
  private readonly early = new Map<string, string>();
  lost = 0;

  settle(runId: string, outcome: string): void {
    if (outcome === "lost") {
      this.lost++;
      return;
    }
    const w = this.waiters.get(runId);
    if (w === undefined) {
      this.early.set(runId, outcome);
      return;
    }
    this.waiters.delete(runId);
    if (outcome === "completed") w.resolve();
    else w.reject(new Error(`run ${runId}: ${outcome}`));
  }

  wait(runId: string): Promise<void> {
    const done = this.early.get(runId);
    if (done !== undefined) {
      this.early.delete(runId);
      return done === "completed" ? Promise.resolve() : Promise.reject(new Error(done));
    }
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters.delete(runId);
        reject(new Error(`run ${runId}: not completed after ${RUN_TIMEOUT_MS} ms`));
      }, RUN_TIMEOUT_MS);
      this.waiters.set(runId, {
        resolve: () => (clearTimeout(t), resolve()),
        reject: (e) => (clearTimeout(t), reject(e)),
      });
    });
  }
}

/**
 * `sqliteSynchronous: "full"` runs SQLite with an fsync of the WAL at every
 * COMMIT (the engine's name gets a `-full` suffix); the default is NORMAL.
 */
export async function taskflowEngine(
  databaseUrl: string,
  backend: "postgres" | "sqlite",
  sqliteSynchronous: "normal" | "full" = "normal",
): Promise<DurableEngine & { tf: Taskflow }> {
  const completions = new Completions();
  const recent: ({ id: string; i: number } | undefined)[] = new Array(64);
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl,
      apiKeys: ["bench-key-0123456789abcdefghijkl"],
      logLevel: "silent",
      sqliteSynchronous,
    },
  });
  const tf = await createTaskflow(config, {
    workflows: [bench3],
    worker: {
      onOutcome: (run, outcome) => {
        completions.settle(run.id, outcome instanceof Error ? outcome.message : outcome);
      },
    },
  });
  return {
    name: `taskflow-${backend}${sqliteSynchronous === "full" ? "-full" : ""}`,
    backend,
    tf,
    async runOne(i) {
      const { run } = await tf.runs.start(TENANT, bench3, { input: { i }, startedBy: "bench" });
      await completions.wait(run.id);
      recent[i % recent.length] = { id: run.id, i };
    },
    // Outputs are read back afterwards, so the timed loop has no extra read per run.
    async verify() {
      for (const r of recent) {
        if (r === undefined) continue;
        const done = await tf.runs.get(TENANT, r.id);
        if (done.status !== "completed" || done.output !== expectedOutput(r.i))
          throw new Error(`run ${r.id}: ${done.status} ${JSON.stringify(done.output)}`);
      }
    },
    lostOutcomes: () => completions.lost,
    close: () => tf.close(),
  };
}
