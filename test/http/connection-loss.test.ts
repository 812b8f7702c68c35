/**
 * A server process keeps serving through database connection loss. Its
 * DATABASE_URL goes through a fault proxy; under a steady stream of task
 * cycles (transactions, row locks, joins) and durable runs, every connection
 * is cut several times and the database's own sessions are killed (PostgreSQL
 * `pg_terminate_backend`, MariaDB `KILL`). The process must stay up, every
 * failed request must be a 503 `Unavailable` problem with `Retry-After` (never
 * a 500, never a dropped connection), requests must succeed again within a few
 * seconds, and every acknowledged run must complete.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { createConnection } from "mysql2/promise";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.ts";
import { startServer } from "../support/server-process.ts";
import { apiOf, startSteadyLoad, type Answer, type Api } from "../support/steady-load.ts";

const KEY = "conn-key-0123456789abcdefghijkl";
const PROBLEM = "application/problem+json";
/** Requests that start this long after the last fault must all succeed. */
const RECOVERY_MS = 2_000;

/** Kills every session of the database `url` names, over a direct (unproxied) admin connection. */
async function killSessions(b: Backend, url: string): Promise<number> {
  const db = new URL(url).pathname.slice(1);
  if (b.name === "postgres") {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = $1 and pid <> pg_backend_pid()`,
        [db],
      );
      return r.rowCount ?? 0;
    } finally {
      await c.end();
    }
  }
  const c = await createConnection({ uri: url });
  try {
    const [rows] = await c.query(
      "select id from information_schema.processlist where db = ? and id <> connection_id()",
      [db],
    );
    const ids = (rows as { id: number }[]).map((r) => r.id);
    for (const id of ids) await c.query(`kill ${Number(id)}`).catch(() => undefined);
    return ids.length;
  } finally {
    await c.end();
  }
}

function assertCleanFailures(answers: readonly Answer[]): void {
  const failed = answers.filter((a) => a.status < 200 || a.status >= 300);
  const bad = failed.filter(
    (a) =>
      a.status !== 503 ||
      !a.contentType.startsWith(PROBLEM) ||
      a.code !== "Unavailable" ||
      a.retryAfter === null,
  );
  assert.deepEqual(
    bad.slice(0, 5),
    [],
    `${bad.length} of ${failed.length} failures were not 503 Unavailable problems`,
  );
}

async function runStatus(api: Api, id: string): Promise<string> {
  const r = await api.call("GET", `/v1/runs/${id}`, "alice");
  return r.status === 200 ? (r.body as { status: string }).status : `http ${r.status}`;
}

for (const backend of backends.filter((b) => b.name !== "sqlite")) {
  describe(`connection loss on ${backend.name}`, await backendTestOptions(backend), () => {
    let drop: (() => Promise<void>) | undefined;
    let url: string;
    let proxy: FaultProxy;
    let server: Awaited<ReturnType<typeof startServer>>;
    let api: Api;

    before(async () => {
      const db = await createTestDatabase(backend);
      drop = () => db.drop();
      url = db.url;
      const u = new URL(url);
      proxy = await startFaultProxy(u.hostname, Number(u.port));
      server = await startServer(
        {
          DATABASE_URL: proxy.urlFor(url),
          NODE_ENV: "production",
          WF_API_KEYS: KEY,
          LOG_LEVEL: "fatal",
        },
        ["--workflows", "test/durable/support/flows.ts"],
      );
      api = apiOf(server.port, KEY);
    });

    after(async () => {
      await server?.stop();
      await proxy?.close();
      await drop?.();
    });

    test("cuts and session kills under load: the process lives, failures are 503 problems, service and runs resume", async () => {
      const load = startSteadyLoad(api, { workers: 6, workflow: "five-steps" });
      await sleep(500);
      // Alternate the two kinds of loss: the proxy's cut looks like a network
      // failure (RST/EOF), a session kill like a failover (57P01 / ER_CONNECTION_KILLED).
      for (let i = 0; i < 4; i++) {
        if (i % 2 === 0) proxy.cut();
        else await killSessions(backend, url);
        await sleep(400 + Math.random() * 400);
      }
      const lastFault = load.elapsed();
      await sleep(RECOVERY_MS + 1_500);
      await load.stop();

      assert.equal(server.proc.exitCode, null, `server died: ${server.stderr().slice(-2000)}`);
      const answers = load.answers;
      assertCleanFailures(answers);
      const failedDuringFaults = answers.filter((a) => a.status !== 200 && a.status !== 201);
      assert.ok(failedDuringFaults.length > 0, "the faults must have hit some requests");
      const late = answers.filter((a) => a.at > lastFault + RECOVERY_MS);
      assert.ok(late.length > 0, "requests were answered after the faults");
      const lateFailures = late.filter((a) => a.status >= 300);
      assert.deepEqual(lateFailures, [], "requests succeed again soon after the last fault");

      // Every acknowledged run completes: the worker loops survived the faults.
      assert.ok(load.runIds.length > 0, "runs were started");
      const deadline = Date.now() + 20_000;
      let pending = [...load.runIds];
      while (pending.length > 0 && Date.now() < deadline) {
        const states = await Promise.all(pending.map((id) => runStatus(api, id)));
        pending = pending.filter((_, i) => states[i] !== "completed");
        if (pending.length > 0) await sleep(250);
      }
      assert.deepEqual(pending, [], "every acknowledged run completed");
    });

    test("refused connections: 503 with Retry-After, /readyz 503, /healthz 200; then both recover", async () => {
      proxy.refuse(true);
      try {
        const r = await api.call("POST", "/v1/processes", "alice", { processKey: "conn" });
        assert.equal(r.status, 503);
        assert.ok(r.headers.get("content-type")?.startsWith(PROBLEM));
        assert.equal((r.body as { code: string }).code, "Unavailable");
        assert.ok(Number(r.headers.get("retry-after")) > 0);

        const ready = await api.call("GET", "/readyz", null);
        assert.equal(ready.status, 503);
        assert.ok(ready.headers.get("content-type")?.startsWith(PROBLEM));
        assert.equal((ready.body as { code: string }).code, "Unavailable");
        assert.ok(Number(ready.headers.get("retry-after")) > 0);

        const health = await api.call("GET", "/healthz", null);
        assert.equal(health.status, 200);
      } finally {
        proxy.refuse(false);
      }
      const ready = await api.call("GET", "/readyz", null);
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: "ok", checks: { store: "ok" } });
      const r = await api.call("POST", "/v1/processes", "alice", { processKey: "conn" });
      assert.equal(r.status, 201);
      assert.equal(server.proc.exitCode, null);
    });
  });
}
