/**
 * Overload, for real: the server in its own process (production mode), 200
 * keep-alive connections hammering POST /v1/processes from another process,
 * and a prober that opens a fresh connection for every GET /healthz, as a
 * load balancer does. Health must answer within 1 s throughout, and what the
 * node sheds must be 503 problem+json `Unavailable` with Retry-After.
 * Loopback only; bounded: 200 connections for HAMMER_SECONDS per backend.
 *
 * The hammer's connections wait Retry-After after a 503, as clients of a
 * shedding node should. One that asks again at once turns every shed request
 * into another round of parsing and answering: on 2 busy shared cores health
 * then took 46–2,801 ms on SQLite (limit 64) against 6–650 ms with no limit
 * (2026-12-01); the limit protects the queue, not against such a client.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";
import { hammer } from "../support/hammer.ts";
import { startServer } from "../support/server-process.ts";

const KEY = "overload-key-0123456789abcdefghijkl";
const CONNECTIONS = 200;
const HAMMER_SECONDS = 12;
/**
 * Probing starts after a warm-up and ends before the hammer stops. The first
 * second or two of the hammer — 200 first requests at once on a cold JIT —
 * stalled the loop for 1–1.7 s on 2 busy shared cores; a node that has served
 * for a few seconds is what a load balancer probes.
 */
const PROBE_FROM_MS = 4_000;
const PROBE_UNTIL_MS = 11_000;
const PROBE_EVERY_MS = 200;
const HEALTH_WITHIN_MS = 1_000;
/**
 * Probes allowed over 1 s. Not zero: on 2 shared cores at load 12–16 the
 * server (or the prober) sometimes stalled 1.5–4 s whatever it ran. Without
 * the SQLite turn budget, at that load, most SQLite probes were over (0.4–14
 * s). On a calm machine (load 3–8) health stayed under 1 s even without it
 * (170–350 ms, against 14–99 ms with it); there the shedding assertions are
 * what fail, and sqlite-group-commit.test.ts pins the budget itself.
 */
const SLOW_PROBES_ALLOWED = 0.1;
/** Low enough that 200 busy connections cross it, so shedding is seen. */
const MAX_IN_FLIGHT = 64;

/** GET /healthz on a new connection; the time from connect() to the end of the answer. */
function freshHealth(port: number): Promise<{ ms: number; status: number | string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0 }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in 10 s")));
    req.on("error", (e) => resolve({ ms: performance.now() - t0, status: e.message }));
  });
}

async function probeHealth(port: number): Promise<{ ms: number; status: number | string }[]> {
  await sleep(PROBE_FROM_MS);
  const probes = [];
  const until = performance.now() + PROBE_UNTIL_MS - PROBE_FROM_MS;
  while (performance.now() < until) {
    probes.push(await freshHealth(port));
    await sleep(PROBE_EVERY_MS);
  }
  return probes;
}

void describe("overload: 200 busy keep-alive connections", () => {
  for (const backend of backends) {
    void test(`${backend.name}: /healthz on a fresh connection answers within 1 s; shed requests are 503 Unavailable with Retry-After`, async (t) => {
      const skip = await backendTestOptions(backend);
      if (skip.skip) return t.skip(skip.skip);
      const db = await createTestDatabase(backend);
      const server = await startServer({
        DATABASE_URL: db.url,
        NODE_ENV: "production",
        WF_API_KEYS: KEY,
        LOG_LEVEL: "warn",
        WF_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
      });
      try {
        const [load, probes] = await Promise.all([
          hammer(server.port, KEY, CONNECTIONS, HAMMER_SECONDS),
          probeHealth(server.port),
        ]);
        const ms = probes.map((p) => Math.round(p.ms));
        t.diagnostic(`health ms: ${ms.join(" ")}; answers: ${JSON.stringify(load.statuses)}`);

        assert.ok(probes.length >= 5, `${probes.length} probes: ${ms.join(" ")}`);
        for (const p of probes) assert.equal(p.status, 200, `health answered ${p.status}`);
        const slow = ms.filter((x) => x > HEALTH_WITHIN_MS);
        assert.ok(
          slow.length <= Math.floor(probes.length * SLOW_PROBES_ALLOWED),
          `fresh-connection /healthz over 1 s: ${slow.length} of ${probes.length} (${ms.join(" ")})`,
        );

        const served = load.statuses["201"] ?? 0;
        const shed = load.statuses["503"] ?? 0;
        assert.ok(served > 0, "the node still serves under load");
        assert.ok(shed > 0, `nothing was shed past ${MAX_IN_FLIGHT} in flight`);
        assert.equal(load.bad503, 0, `a 503 that is not problem+json: ${load.firstBad503}`);
        const other = Object.keys(load.statuses).filter((s) => s !== "201" && s !== "503");
        assert.deepEqual(other, [], "only 201 and 503, no errors");
      } finally {
        await server.stop();
        await db.drop();
      }
    });
  }
});
