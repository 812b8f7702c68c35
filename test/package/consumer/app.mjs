// A plain JavaScript app that embeds TaskFlow from the installed package: the
// engine on SQLite, one workflow with a human task, the typed client against the
// served API. Prints one JSON line with what it saw; exits non-zero on failure.
import { createTaskflow, loadConfig, workflow } from "taskflow";
import { TaskflowClient } from "taskflow/client";

const approval = workflow("approval", async (ctx, input) => {
  const doubled = await ctx.step("double", () => input.n * 2);
  const decision = await ctx.humanTask("review", {
    assignee: { kind: "user", id: "boss" },
    vars: { doubled },
  });
  return { doubled, action: decision.action };
});

const config = loadConfig({
  env: {},
  overrides: {
    databaseUrl: `sqlite:${process.argv[2]}`,
    addr: "127.0.0.1:0",
    apiKeys: ["consumer-key-0123456789abcdef"],
    users: ["alice", "boss"],
    logLevel: "silent",
  },
});
const taskflow = await createTaskflow(config, { workflows: [approval] });
try {
  const baseUrl = await taskflow.listen();
  const client = new TaskflowClient({ baseUrl, apiKey: "consumer-key-0123456789abcdef" });
  const started = await client.as("alice").startRun("approval", { input: { n: 21 } });
  const task = await until(async () => (await client.as("boss").inbox()).items[0]);
  await client.as("boss").complete(task.id, { vars: { action: "approve" } });
  const run = await until(async () => {
    const r = await client.getRun(started.runId);
    return r.status === "completed" ? r : undefined;
  });
  console.log(JSON.stringify({ status: run.status, output: run.output }));
} finally {
  await taskflow.close();
}

async function until(probe) {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("timed out waiting");
}
