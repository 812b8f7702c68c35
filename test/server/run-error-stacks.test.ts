/**
 * A failed run's error and the failures in its history reach the API without
 * their stack (which names server files) unless the operator turns
 * exposeErrorStacks / WF_EXPOSE_STACKS on; the stored history keeps the stack.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { ConfigError } from "../../src/config/config-error.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { workflow } from "../../src/workflow.ts";
import { createTestDatabase } from "../support/backends.ts";

const KEY = "stack-key-0123456789abcdefghijkl";
const broken = workflow("broken", async (ctx) => {
  await ctx.step(
    "fail",
    () => {
      throw new Error("nope");
    },
    // Two attempts: the first is retried in memory and listed in the outcome's `retried`.
    { retry: { maxAttempts: 2, initialInterval: 1 } },
  );
});

interface FailureJson {
  message: string;
  stack: string | null;
}

async function failedRun(exposeErrorStacks: boolean | undefined) {
  const db = await createTestDatabase({ name: "sqlite" });
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [KEY],
      logLevel: "silent",
      ...(exposeErrorStacks === undefined ? {} : { exposeErrorStacks }),
    },
  });
  const tf = await createTaskflow(config, {
    workflows: [broken],
    worker: { pollMs: 20, heartbeatMs: 300 },
  });
  const get = async (url: string) =>
    (
      await tf.server.inject({
        method: "GET",
        url,
        headers: { "x-api-key": KEY, "x-actor-id": "alice" },
      })
    ).json<Record<string, unknown>>();
  try {
    const started = await tf.server.inject({
      method: "POST",
      url: "/v1/workflows/broken/runs",
      headers: { "x-api-key": KEY, "x-actor-id": "alice" },
      payload: {},
    });
    const { runId } = started.json<{ runId: string }>();
    let run: Record<string, unknown> = {};
    // Up to 20 s: the machine running the suite may be busy.
    for (let i = 0; i < 800 && run.status !== "failed"; i++) {
      await sleep(25);
      run = await get(`/v1/runs/${runId}`);
    }
    assert.equal(run.status, "failed");
    const list = (await get("/v1/runs")) as { items: { error: FailureJson | null }[] };
    const history = (await get(`/v1/runs/${runId}/history`)) as {
      items: {
        type: string;
        data: { failure?: FailureJson; retried?: { failure: FailureJson }[] } | null;
      }[];
    };
    const step = history.items.find((e) => e.type === "step");
    const stored = (await tf.runs.history("default", runId)).find((e) => e.type === "step");
    return {
      error: run.error as FailureJson,
      listed: list.items[0]!.error!,
      stepFailure: step!.data!.failure!,
      retriedFailure: step!.data!.retried![0]!.failure,
      storedStack: (stored!.data as { failure: FailureJson }).failure.stack,
    };
  } finally {
    await tf.close();
    await db.drop();
  }
}

void describe("run error stacks", () => {
  void test("hidden from the API by default, kept in the stored history", async () => {
    const r = await failedRun(undefined);
    assert.match(r.error.message, /nope/);
    assert.equal(r.error.stack, null, "GET /v1/runs/:id error");
    assert.equal(r.listed.stack, null, "GET /v1/runs items");
    assert.equal(r.stepFailure.message, "nope");
    assert.equal(r.stepFailure.stack, null, "history step failure");
    assert.equal(r.retriedFailure.message, "nope");
    assert.equal(r.retriedFailure.stack, null, "history: an attempt retried in memory");
    assert.match(String(r.storedStack), /Error: nope\n\s+at /, "the store keeps the stack");
  });

  void test("returned when exposeErrorStacks is on", async () => {
    const r = await failedRun(true);
    assert.match(String(r.error.stack), /\n\s+at /);
    assert.match(String(r.stepFailure.stack), /Error: nope\n\s+at /);
    assert.match(String(r.retriedFailure.stack), /Error: nope\n\s+at /);
  });

  void test("WF_EXPOSE_STACKS sets it; anything but a boolean is refused", () => {
    const base = { NODE_ENV: "development" };
    assert.equal(loadConfig({ env: base }).exposeErrorStacks, false);
    assert.equal(
      loadConfig({ env: { ...base, WF_EXPOSE_STACKS: "true" } }).exposeErrorStacks,
      true,
    );
    assert.equal(loadConfig({ env: { ...base, WF_EXPOSE_STACKS: "0" } }).exposeErrorStacks, false);
    assert.throws(
      () => loadConfig({ env: { ...base, WF_EXPOSE_STACKS: "yes please" } }),
      (e) => e instanceof ConfigError && /environment WF_EXPOSE_STACKS: /.test(e.message),
    );
  });
});
