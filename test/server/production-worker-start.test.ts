/**
 * `taskflow worker` in production, as a user starts it (the built bin): it serves no
 * API and needs no key, and it runs what a keyed API-only server (`serve --no-worker`)
 * accepted — on PostgreSQL, since two processes share no SQLite file. On
 * WF_WORKER_HEALTH_ADDR it answers /healthz and /readyz (and nothing else), and a run
 * that fails on it is one warn line in its log, without stack or key. Apart from
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
  type Started,
} from "./support/production-process.ts";

after(removeProcessFiles);

/** Polls /readyz until 200: the worker polls once its migrations ran. */
async function ready(p: Started, base: string): Promise<void> {
  const end = Date.now() + START_MS;
  for (;;) {
    const r = await fetch(`${base}/readyz`).catch(() => undefined);
    if (r?.status === 200) return;
    if (p.proc.exitCode !== null || Date.now() > end) {
      assert.fail(`not ready (exit ${p.proc.exitCode}):\n${p.stdout()}\n${p.stderr()}`);
    }
    await sleep(100);
  }
}

/** Polls a run through the API until it leaves pending/running. */
async function settled(
  worker: Started,
  base: string,
  runId: string,
  headers: Record<string, string>,
) {
  let run: { status?: string; output?: unknown; error?: unknown } = {};
  for (let i = 0; i < START_MS / 100; i++) {
    if (worker.proc.exitCode !== null) assert.fail(`the worker exited: ${worker.stderr()}`);
    const r = await fetch(`${base}/v1/runs/${runId}`, { headers });
    run = (await r.json()) as typeof run;
    if (run.status === "completed" || run.status === "failed") return run;
    await sleep(100);
  }
  return run;
}

test("taskflow worker in production needs no key, serves health on WF_WORKER_HEALTH_ADDR, runs what a keyed API-only server accepted and logs a failed run", async () => {
  const flows = join(dir, "flows.mjs");
  const api = new URL("../../dist/index.js", import.meta.url).href;
  writeFileSync(
    flows,
    `import { workflow } from ${JSON.stringify(api)};\n` +
      `export const ping = workflow("ping", async (_ctx, input) => ({ pong: input }));\n` +
      `export const boom = workflow("boom", async () => { throw new Error("the card was declined"); });\n`,
  );
  // Two processes on one database: PostgreSQL (SQLite is one process per file).
  const database = await createTestDatabase({ name: "postgres" });
  after(() => database.drop());
  const [port, healthPort] = [await freePort(), await freePort()];
  const env = { ...production("worker", port), DATABASE_URL: database.url };
  const server = bin(["serve", "--no-worker", "--workflows", flows], { ...env, WF_API_KEYS: KEY });
  // No WF_API_KEYS: the worker serves no API, only the health routes, which take no key.
  const worker = bin(["worker", "--workflows", flows], {
    ...env,
    WF_WORKER_HEALTH_ADDR: `127.0.0.1:${healthPort}`,
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    const health = `http://127.0.0.1:${healthPort}`;
    await reachable(server, base);
    await serves(base);
    await reachable(worker, health);
    await ready(worker, health);
    assert.equal((await fetch(`${health}/healthz`)).status, 200);
    const readyz = await fetch(`${health}/readyz`);
    assert.deepEqual(await readyz.json(), { status: "ok", checks: { store: "ok", worker: "ok" } });
    // Nothing else, keyed or not; the key sent here must not reach the log either.
    const api = await fetch(`${health}/v1/definitions`, { headers: { "x-api-key": KEY } });
    assert.equal(api.status, 404);
    assert.match(String(api.headers.get("content-type")), /^application\/problem\+json/);
    assert.match(worker.stdout(), new RegExp(`taskflow: worker health on ${health}\n`));

    const headers = { "x-api-key": KEY, "x-actor-id": "alice", "content-type": "application/json" };
    const start = (name: string) =>
      fetch(`${base}/v1/workflows/${name}/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify({ input: 42 }),
      }).then(async (r) => {
        assert.equal(r.status, 201, await r.clone().text());
        return ((await r.json()) as { runId: string }).runId;
      });
    const runId = await start("ping");
    const run = await settled(worker, base, runId, headers);
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(run.output, { pong: 42 });
    assert.match(
      worker.stdout(),
      /taskflow: worker \S+ running workflows (?=.*\bping\b)(?=.*\bboom\b)/,
    );

    const failedId = await start("boom");
    const failed = await settled(worker, base, failedId, headers);
    assert.equal(failed.status, "failed", JSON.stringify(failed));
    // The line is written once the failed run is read back: wait for it, briefly.
    const line = () =>
      worker
        .stdout()
        .split("\n")
        .find((l) => l.includes(failedId) && l.includes(" failed"));
    for (let i = 0; i < 50 && line() === undefined; i++) await sleep(100);
    const text = line();
    assert.ok(text !== undefined, `no failure line in the worker's log:\n${worker.stdout()}`);
    const entry = JSON.parse(text) as Record<string, unknown>;
    assert.equal(entry.level, 40, "warn");
    assert.equal(entry.msg, `run ${failedId} of workflow boom failed`);
    assert.equal(entry.runId, failedId);
    assert.equal(entry.workflow, "boom");
    assert.equal(entry.tenantId, "default");
    assert.equal(entry.cause, "the card was declined");
    const output = worker.stdout() + worker.stderr();
    assert.doesNotMatch(output, /\n\s+at |flows\.mjs:\d/, "no stack in the worker's output");
    assert.ok(!output.includes(KEY), "no key in the worker's output");
  } finally {
    assert.equal(await worker.stop(), 0, worker.stderr());
    assert.equal(await server.stop(), 0, server.stderr());
  }
});

test("taskflow worker refuses a bad WF_WORKER_HEALTH_ADDR before any work, naming it", async () => {
  const flows = join(dir, "flows-bad-addr.mjs");
  writeFileSync(flows, "export {};\n");
  const worker = bin(["worker", "--workflows", flows], {
    ...production("bad-health-addr", await freePort()),
    WF_WORKER_HEALTH_ADDR: "9091",
  });
  assert.equal(await worker.exited, 1, worker.stderr());
  assert.match(worker.stderr(), /WF_WORKER_HEALTH_ADDR: "9091" is not host:port/);
});
