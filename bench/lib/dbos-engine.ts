/**
 * DBOS Transact (@dbos-inc/dbos-sdk) embedded in this process, on its own fresh
 * PostgreSQL database as its system database: the same 3-step workflow as
 * registerWorkflow + DBOS.runStep, started with DBOS.startWorkflow and awaited
 * with handle.getResult() (for a workflow started in-process that is the
 * in-memory result, no polling). Default pool size (10), like TaskFlow's.
 *
 * DBOS is a process-wide singleton: register once, launch once, shut down once.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { expectedOutput, type DurableEngine } from "./durable-engine.ts";

let registered: ((i: number) => Promise<string>) | undefined;

function register(): (i: number) => Promise<string> {
  registered ??= DBOS.registerWorkflow(
    async (i: number) => {
      const a = await DBOS.runStep(() => Promise.resolve(i + 1), { name: "a" });
      const b = await DBOS.runStep(() => Promise.resolve(a * 2), { name: "b" });
      return DBOS.runStep(() => Promise.resolve(`r${b}`), { name: "c" });
    },
    { name: "bench3" },
  );
  return registered;
}

export async function dbosEngine(systemDatabaseUrl: string): Promise<DurableEngine> {
  const wf = register();
  DBOS.setConfig({ name: "taskflow-bench", systemDatabaseUrl, logLevel: "error" });
  await DBOS.launch();
  return {
    name: "dbos",
    backend: "postgres",
    async runOne(i) {
      const handle = await DBOS.startWorkflow(wf)(i);
      const out = await handle.getResult();
      if (out !== expectedOutput(i)) throw new Error(`dbos run ${i}: output ${out}`);
    },
    // runOne already checks every output (getResult returns it anyway).
    verify: () => Promise.resolve(),
    close: () => DBOS.shutdown(),
  };
}
