/**
 * Quarantine (docs/durable.md): a run whose executions keep killing their node
 * (kill -9 at the same point on every replay) is counted across the restarts
 * — in the database, since each node dies — and once past the limit the next
 * node quarantines it instead of replaying it, and stays up. The operator sees
 * it in GET /v1/runs?status=quarantined and in the run, with the reason.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "../support/backends.ts";
import { crash, QUARANTINE_AFTER } from "./support/crashing-node.ts";

const KEY = "quarantine-key-0123456789abcdefgh";
const script = fileURLToPath(new URL("./support/crashing-node.ts", import.meta.url));
const headers = { "x-api-key": KEY, "x-actor-id": "alice" };

/** Starts a node and waits until it dies (→ its signal) or has been up for `upMs` (→ "up", killed). */
async function nodeLife(url: string, upMs: number): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", script, url, KEY], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(([code, signal]) => String(signal ?? `code ${code}`));
  const ready = new Promise<void>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve();
    });
  });
  const first = await Promise.race([exited, ready.then(() => sleep(upMs)).then(() => "up")]);
  if (first === "up") {
    child.kill("SIGKILL");
    await exited;
  }
  return first;
}

test("a run that kills its node on every replay is quarantined, and the node stays up", async () => {
  const db = await createTestDatabase({ name: "sqlite" });
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: [KEY], logLevel: "silent" },
  });
  try {
    // Started by a node without a worker, so every execution is a claim (and counts).
    const api = await createTaskflow(config, { workflows: [crash], worker: false });
    const started = await api.server.inject({
      method: "POST",
      url: "/v1/workflows/crash/runs",
      headers,
      payload: { id: "doomed" },
    });
    assert.equal(started.statusCode, 201, started.body);
    await api.close();

    // Each node claims the run and dies in its step; the last one claims it once more and quarantines it.
    const lives: string[] = [];
    for (let i = 0; i <= QUARANTINE_AFTER; i++) {
      await sleep(400); // the dead node's 300 ms lease runs out
      lives.push(await nodeLife(db.url, 1_500));
    }
    assert.deepEqual(lives, [...Array<string>(QUARANTINE_AFTER).fill("SIGKILL"), "up"]);

    const tf = await createTaskflow(config, { workflows: [crash], worker: false });
    try {
      const get = async (url: string) =>
        (await tf.server.inject({ method: "GET", url, headers })).json<Record<string, unknown>>();
      const run = await get("/v1/runs/doomed");
      assert.equal(run["status"], "quarantined");
      const error = run["error"] as Record<string, unknown>;
      assert.equal(error["name"], "RunQuarantined");
      assert.equal(error["type"], "quarantined");
      assert.match(String(error["message"]), /last 2 executions in a row ended without parking/);
      const listed = await get("/v1/runs?status=quarantined");
      assert.deepEqual(
        (listed["items"] as { runId: string }[]).map((r) => r.runId),
        ["doomed"],
      );
    } finally {
      await tf.close();
    }
  } finally {
    await db.drop();
  }
});
