// A TypeScript consumer (module NodeNext, strict): both entry points type-check
// with zero errors against the package's declaration files.
import {
  createTaskflow,
  loadConfig,
  workflow,
  type Taskflow,
  type TaskflowConfig,
  type WorkflowContext,
} from "taskflow";
import { TaskflowClient, isTaskflowHttpError, type Task } from "taskflow/client";

export const order = workflow("order", async (ctx: WorkflowContext, input: { id: string }) => {
  const charged: number = await ctx.step("charge", () => input.id.length);
  await ctx.sleep("1s");
  return { charged };
});

export async function start(file: string): Promise<Taskflow> {
  const config: TaskflowConfig = loadConfig({
    env: {},
    overrides: {
      databaseUrl: `sqlite:${file}`,
      apiKeys: ["k-0123456789abcdefghijkl"],
      logLevel: "silent",
    },
  });
  return createTaskflow(config, { workflows: [order] });
}

export async function firstTask(baseUrl: string): Promise<Task | undefined> {
  const client = new TaskflowClient({ baseUrl, apiKey: "k" });
  try {
    return (await client.as("alice").inbox()).items[0];
  } catch (e) {
    if (isTaskflowHttpError(e)) return undefined;
    throw e;
  }
}
