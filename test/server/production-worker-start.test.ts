/**
 * `taskflow worker` in production, as a user starts it (the built bin): it serves no
 * HTTP and needs no key, and it runs what a keyed API-only server (`serve --no-worker`)
 * accepted — on PostgreSQL, since two processes share no SQLite file. Apart from
 * production-start.test.ts so the two run side by side.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestDatabase } from "../support/backends.ts";
import { freePort } from "../support/server-process.ts";
import {
  bin,
  dir,
  KEY,
  production,
  reachable,
  removeProcessFiles,
  serves,
  START_MS,
} from "./support/production-process.ts";

after(removeProcessFiles);

test("taskflow worker in production needs no key and runs what a keyed API-only server accepted", async () => {
  const flows = join(dir, "flows.mjs");
  const api = new URL("../../dist/index.js", import.meta.url).href;
  writeFileSync(
    flows,
    `import { workflow } from ${JSON.stringify(api)};\n` +
      `export const ping = workflow("ping", async (_ctx, input) => ({ pong: input }));\n`,
  );
  // Two processes on one database: PostgreSQL (SQLite is one process per file).
  const database = await createTestDatabase({ name: "postgres" });
  after(() => database.drop());
  const port = await freePort();
  const env = { ...production("worker", port), DATABASE_URL: database.url };
  const server = bin(["serve", "--no-worker", "--workflows", flows], { ...env, WF_API_KEYS: KEY });
  const worker = bin(["worker", "--workflows", flows], env);
  try {
    const base = `http://127.0.0.1:${port}`;
    await reachable(server, base);
    await serves(base);
    const headers = { "x-api-key": KEY, "x-actor-id": "alice", "content-type": "application/json" };
    const started = await fetch(`${base}/v1/workflows/ping/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ input: 42 }),
    });
    assert.equal(started.status, 201, await started.clone().text());
    const { runId } = (await started.json()) as { runId: string };
    let run: { status?: string; output?: unknown } = {};
    for (let i = 0; i < START_MS / 100 && run.status !== "completed"; i++) {
      if (worker.proc.exitCode !== null) assert.fail(`the worker exited: ${worker.stderr()}`);
      const r = await fetch(`${base}/v1/runs/${runId}`, { headers });
      run = (await r.json()) as typeof run;
      if (run.status !== "completed") await sleep(100);
    }
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(run.output, { pong: 42 });
    assert.match(worker.stdout(), /taskflow: worker \S+ running workflows ping/);
  } finally {
    assert.equal(await worker.stop(), 0, worker.stderr());
    assert.equal(await server.stop(), 0, server.stderr());
  }
});
