/**
 * A TaskFlow node whose one workflow, `crash`, kills its own process with
 * SIGKILL in its first step (test/durable/run-quarantine.test.ts starts it
 * again and again). Its worker's lease is short, so the next node takes the
 * run over soon, and it quarantines after 2 stalled executions. Prints
 * "ready" once the worker runs.
 *
 * argv: database URL, API key.
 */
import { loadConfig } from "../../../src/config/load-config.ts";
import { createTaskflow } from "../../../src/composition/create-taskflow.ts";
import { workflow } from "../../../src/workflow.ts";

export const QUARANTINE_AFTER = 2;

export const crash = workflow("crash", async (ctx) => {
  await ctx.step("kill-myself", () => {
    process.kill(process.pid, "SIGKILL");
  });
});

const [databaseUrl, key] = process.argv.slice(2);
if (databaseUrl !== undefined && key !== undefined) {
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl, apiKeys: [key], logLevel: "silent" },
  });
  await createTaskflow(config, {
    workflows: [crash],
    worker: {
      leaseMs: 300,
      heartbeatMs: 100,
      pollMs: 50,
      contextOptions: { quarantineAfter: QUARANTINE_AFTER },
    },
  });
  process.stdout.write("ready\n");
}
