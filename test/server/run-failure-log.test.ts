/**
 * A run that fails says so in the server's log (issue 21, item 19: the
 * README's durable example failed after 3 attempts and the server logged
 * nothing). One warn line per failed run, naming the run, its workflow and
 * the failure's message — never its stack; a run that completes logs nothing.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { pino } from "pino";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { NonRetryableError, workflow } from "../../src/workflow.ts";
import { createTestDatabase } from "../support/backends.ts";

const broken = workflow("broken", () => {
  throw new NonRetryableError("payments is not defined");
});
const fine = workflow("fine", () => Promise.resolve("ok"));

void test("a failed run is one warn line with its id, workflow and failure; a completed one none", async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const db = await createTestDatabase({ name: "sqlite" });
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: ["k".repeat(32)], rateLimit: false },
  });
  const tf = await createTaskflow(config, {
    logger: pino({ level: "info" }, stream),
    workflows: [broken, fine],
    worker: { pollMs: 20 },
  });
  try {
    await tf.runs.start("default", "fine", { id: "ok-1", startedBy: "alice" });
    await tf.runs.start("default", "broken", { id: "bad-1", startedBy: "alice" });
    const warned = () =>
      lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l["level"] === 40);
    const end = Date.now() + 15_000;
    while (warned().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    assert.equal((await tf.runs.get("default", "ok-1")).status, "completed");
    const [line, ...more] = warned();
    assert.ok(line, "no warn line");
    assert.deepEqual(more, []);
    assert.equal(line["msg"], "run bad-1 of workflow broken failed");
    assert.equal(line["runId"], "bad-1");
    assert.equal(line["workflow"], "broken");
    assert.equal(line["tenantId"], "default");
    assert.equal(line["cause"], "payments is not defined");
    assert.doesNotMatch(JSON.stringify(line), /at .*\.ts:\d+/, "no stack");
  } finally {
    await tf.close();
    await db.drop();
  }
});
