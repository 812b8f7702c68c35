/**
 * The worker's health listener (WF_WORKER_HEALTH_ADDR): the setting is parsed
 * like ADDR and off when unset; the listener answers /healthz and /readyz with
 * no key (503 problem+json naming what is not ready), and nothing else (404
 * problem+json). A taken port fails naming the setting. In production with the
 * built CLI: test/server/production-worker-start.test.ts.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { ConfigError } from "../../../src/config/config-error.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { UnavailableError } from "../../../src/domain/unavailable.ts";
import type { Worker } from "../../../src/engine/durable/worker.ts";
import { createLogger } from "../../../src/server/hooks/logging.ts";
import { listenForHealth } from "../../../src/composition/worker-health.ts";

const load = (env: Record<string, string>) =>
  loadConfig({ env: { NODE_ENV: "production", ...env }, requireApiKeys: false });
const silent = createLogger({ logLevel: "silent" });
const ok = () => Promise.resolve();
const down = () => Promise.reject(new UnavailableError("the database is unavailable"));
/** The one thing /readyz reads of a worker. */
const polling = (p: boolean) => ({ polling: p }) as Worker;

test("WF_WORKER_HEALTH_ADDR: off when unset or empty, host:port like ADDR, a bad value names it", () => {
  assert.equal(load({}).workerHealthAddr, null);
  assert.equal(load({ WF_WORKER_HEALTH_ADDR: "" }).workerHealthAddr, null);
  assert.deepEqual(load({ WF_WORKER_HEALTH_ADDR: "127.0.0.1:9091" }).workerHealthAddr, {
    host: "127.0.0.1",
    port: 9091,
  });
  assert.deepEqual(load({ WF_WORKER_HEALTH_ADDR: ":9091" }).workerHealthAddr, {
    host: "0.0.0.0",
    port: 9091,
  });
  for (const bad of ["9091", "host:99999", "a b:1"]) {
    assert.throws(
      () => load({ WF_WORKER_HEALTH_ADDR: bad }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /environment WF_WORKER_HEALTH_ADDR: .*is not host:port/.test(e.message),
      bad,
    );
  }
});

test("the listener: /healthz and /readyz without a key, 503 naming what is not ready, 404 elsewhere", async () => {
  let worker: Worker | undefined;
  let ping = ok;
  const h = await listenForHealth(
    { host: "127.0.0.1", port: 0 },
    silent,
    () => ping(),
    () => worker,
  );
  try {
    const base = h.address;
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    const healthz = await fetch(`${base}/healthz`);
    assert.equal(healthz.status, 200);
    assert.deepEqual(await healthz.json(), { status: "ok" });

    const detail = async () => {
      const r = await fetch(`${base}/readyz`);
      assert.equal(r.status, 503);
      assert.match(String(r.headers.get("content-type")), /^application\/problem\+json/);
      assert.ok(Number(r.headers.get("retry-after")) > 0);
      const p = (await r.json()) as { code: string; detail: string };
      assert.equal(p.code, "Unavailable");
      return p.detail;
    };
    // Migrations run before the worker exists.
    assert.equal(await detail(), "not ready: worker not started");
    worker = polling(false);
    assert.equal(await detail(), "not ready: worker not polling");
    worker = polling(true);
    ping = down;
    assert.equal(await detail(), "not ready: store unavailable");
    ping = ok;
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: "ok", checks: { store: "ok", worker: "ok" } });

    // No API here, keyed or not.
    for (const [method, path] of [
      ["GET", "/v1/definitions"],
      ["POST", "/v1/workflows/ping/runs"],
      ["GET", "/openapi.json"],
      ["GET", "/console/"],
    ] as const) {
      const r = await fetch(`${base}${path}`, { method, headers: { "x-api-key": "k".repeat(32) } });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.match(String(r.headers.get("content-type")), /^application\/problem\+json/);
      assert.equal(((await r.json()) as { code: string }).code, "NotFound");
    }
  } finally {
    await h.close();
  }
});

test("a taken port fails the start naming WF_WORKER_HEALTH_ADDR", async () => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  const port = (taken.address() as { port: number }).port;
  try {
    await assert.rejects(
      listenForHealth({ host: "127.0.0.1", port }, silent, ok, () => undefined),
      new RegExp(`^Error: WF_WORKER_HEALTH_ADDR 127\\.0\\.0\\.1:${port}: the address is in use`),
    );
  } finally {
    taken.close();
  }
});
