/**
 * 1,000 new trigger routes reach three server processes (`taskflow serve`,
 * one database) within 2 s of each publish, while old routes never stop
 * answering.
 *
 * 50 old routes are published first and warmed on every node. Then 20
 * definitions × 50 triggers (the language's maximum per definition) are
 * published one after the other through node 0 (the next once the last one
 * is served everywhere), while a load generator per
 * node keeps starting runs through the old routes. After each publish
 * returns 201, every node is polled for that publish's routes: a GET of a
 * POST route is answered 405 (the path is in the table, no run is started)
 * where an unknown path is 404; once one is served all 50 must be, and one
 * route of each publish is POSTed and must start a run (202). Asserted: every
 * node served every publish ≤ 2 s after it returned, and no request for an old route got anything but 202
 * during the whole run. The definitions have no `respond` state, so a hook
 * request is answered as soon as its run is started.
 *
 * Last, the rebuild a node makes per revision is measured in this process: one
 * triggerHeads() snapshot of the 1,050 routes, compiled into a table.
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it, type TestContext } from "node:test";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { compileTenants } from "../../src/engine/definitions/triggers/compile-route-table.ts";
import { RouteTable } from "../../src/engine/definitions/triggers/route-table.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../support/backends.ts";
import { startServer, type ServerProcess } from "../support/server-process.ts";

const KEY = "routes-three-nodes-key-0123456789ab";
const TENANT = "t1";
const OLD_ROUTES = 50;
const PUBLISHES = 20;
const TRIGGERS = 50; // the language's maximum per definition
/** Each node must serve a publish's routes within this after the publish returned. */
const BOUND_MS = 2000;
/** Pause between one load generator's requests: about 3 × 2 × 50 = 300 runs started a second. */
const LOAD_PAUSE_MS = 20;
const LOAD_LOOPS_PER_NODE = 2;

const headers = { "x-api-key": KEY, "x-actor-id": "alice", "x-tenant-id": TENANT };

const doc = (key: string, paths: string[]) => ({
  key,
  name: key,
  start: "done",
  triggers: paths.map((path) => ({ method: "POST", path })),
  states: { done: { type: "end" } },
});

const oldPath = (i: number) => `/old/r${i}`;
const newPath = (d: number, i: number) => `/new/d${d}/r${i}`;

async function request(node: ServerProcess, method: "GET" | "POST", path: string, body?: unknown) {
  const r = await fetch(`http://127.0.0.1:${node.port}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  await r.arrayBuffer();
  return r.status;
}

async function publish(node: ServerProcess, key: string, paths: string[]): Promise<void> {
  const status = await request(node, "POST", `/v1/definitions/${key}/publish`, doc(key, paths));
  assert.equal(status, 201, `publish ${key}`);
}

interface OldLoad {
  sent: number;
  failures: string[];
  latencies: number[];
  /** When each old-route request was answered (performance.now()). */
  answeredAt: number[];
}

/** Old-route requests to one node until `stop` is set; anything but 202 is a failure. */
async function loadLoop(node: ServerProcess, n: number, load: OldLoad, stop: { set: boolean }) {
  let i = 0;
  while (!stop.set) {
    const path = oldPath((i++ * 7 + n) % OLD_ROUTES);
    let outcome: string;
    const sentAt = performance.now();
    try {
      const status = await request(node, "POST", `/v1/hooks${path}`);
      outcome = String(status);
    } catch (e) {
      outcome = e instanceof Error ? e.message : String(e);
    }
    const answeredAt = performance.now();
    load.latencies.push(answeredAt - sentAt);
    load.answeredAt.push(answeredAt);
    load.sent++;
    if (outcome !== "202") load.failures.push(`node ${node.port} ${path}: ${outcome}`);
    await sleep(LOAD_PAUSE_MS);
  }
}

/**
 * When `node` first serves publish `d`, in ms after `returnedAt`: one of its
 * routes is polled (a GET of a POST route: 405 once it is in the table, 404
 * before; nothing is started). The table is replaced whole, with every route
 * of one snapshot, so the first route served is the moment the publish's 50
 * are — `everyRoute` checks that right after.
 */
async function firstServed(node: ServerProcess, d: number, returnedAt: number): Promise<number> {
  for (;;) {
    const status = await request(node, "GET", `/v1/hooks${newPath(d, TRIGGERS - 1)}`);
    const at = performance.now() - returnedAt;
    if (status === 405) return at;
    assert.equal(status, 404, `node ${node.port} GET ${newPath(d, TRIGGERS - 1)}`);
    if (at > BOUND_MS * 3) return at;
    await sleep(20);
  }
}

/** Every route of publish `d` is in the node's table; its first route starts a run. */
async function everyRoute(node: ServerProcess, d: number): Promise<void> {
  const statuses = await Promise.all(
    Array.from({ length: TRIGGERS }, (_, i) =>
      request(node, i === 0 ? "POST" : "GET", `/v1/hooks${newPath(d, i)}`),
    ),
  );
  assert.deepEqual(statuses, [202, ...Array<number>(TRIGGERS - 1).fill(405)], `node ${node.port}`);
}

/** Polls every node for publish `d`; the first serve is timed, then all its routes are checked. */
function probe(nodes: ServerProcess[], d: number, returnedAt: number) {
  return Promise.all(
    nodes.map(async (node, n) => {
      const ms = await firstServed(node, d, returnedAt);
      await everyRoute(node, d);
      return { d, node: n, ms };
    }),
  );
}

function percentile(values: number[], p: number): string {
  const sorted = [...values].sort((x, y) => x - y);
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(0);
}

async function startNodes(url: string): Promise<ServerProcess[]> {
  const env = {
    DATABASE_URL: url,
    WF_API_KEYS: KEY,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    WF_COORDINATION: "sql",
    WF_RATE_LIMIT: "off",
    // Load shedding is not under test; a loaded machine must not shed these requests.
    WF_MAX_EVENT_LOOP_DELAY: "0",
  };
  // The first applies the migrations; the other two start side by side (three tsx starts
  // at once on a loaded 2-core machine ran past server-process.ts's 60 s start timeout).
  const first = await startServer(env);
  const rest = await Promise.allSettled([startServer(env), startServer(env)]);
  const nodes = [first, ...rest.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []))];
  const failed = rest.find((r) => r.status === "rejected");
  if (failed === undefined) return nodes;
  await Promise.all(nodes.map((n) => n.stop()));
  throw failed.reason;
}

/** The best of five rebuilds (a snapshot and its compile), after one that opens the connection. */
async function measureRebuild(t: TestContext, url: string): Promise<void> {
  const database = openDatabase(url);
  try {
    await database.definitions.triggerHeads();
    let best = { read: Infinity, compile: Infinity, size: 0 };
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const heads = await database.definitions.triggerHeads();
      const read = performance.now();
      const table = new RouteTable(compileTenants(heads));
      const compile = performance.now() - read;
      if (read - started + compile < best.read + best.compile) {
        best = { read: read - started, compile, size: table.size };
      }
    }
    assert.equal(best.size, OLD_ROUTES + PUBLISHES * TRIGGERS);
    t.diagnostic(
      `rebuild of ${best.size} routes: snapshot ${best.read.toFixed(1)} ms, ` +
        `compile ${best.compile.toFixed(1)} ms`,
    );
  } finally {
    await database.close();
  }
}

async function run(t: TestContext, backend: Backend): Promise<void> {
  const db = await createTestDatabase(backend);
  let nodes: ServerProcess[] = [];
  const stop = { set: false };
  try {
    nodes = await startNodes(db.url);
    const [writer] = nodes as [ServerProcess];
    await publish(
      writer,
      "old-routes",
      Array.from({ length: OLD_ROUTES }, (_, i) => oldPath(i)),
    );
    for (const node of nodes) {
      const warm = await Promise.all(
        Array.from({ length: OLD_ROUTES }, (_, i) =>
          request(node, "POST", `/v1/hooks${oldPath(i)}`),
        ),
      );
      assert.deepEqual(new Set(warm), new Set([202]), "warm-up");
    }

    const load: OldLoad = { sent: 0, failures: [], latencies: [], answeredAt: [] };
    const loops = nodes.flatMap((node) =>
      Array.from({ length: LOAD_LOOPS_PER_NODE }, (_, n) => loadLoop(node, n, load, stop)),
    );
    const served: { d: number; node: number; ms: number }[] = [];
    const windows: { d: number; from: number; to: number }[] = [];
    let publishCalls = 0;
    const publishing = performance.now();
    for (let d = 0; d < PUBLISHES; d++) {
      const paths = Array.from({ length: TRIGGERS }, (_, i) => newPath(d, i));
      const asked = performance.now();
      await publish(writer, `new-${d}`, paths);
      const returnedAt = performance.now();
      publishCalls += returnedAt - asked;
      served.push(...(await probe(nodes, d, returnedAt)));
      windows.push({ d, from: asked, to: performance.now() });
    }
    const publishMs = performance.now() - publishing;
    stop.set = true;
    await Promise.all(loops);

    const worst = served.reduce((w, s) => (s.ms > w.ms ? s : w));
    t.diagnostic(
      `${PUBLISHES * TRIGGERS} new routes on ${nodes.length} nodes: the slowest served ` +
        `${worst.ms.toFixed(0)} ms after its publish (publish ${worst.d}, node ${worst.node}); ` +
        `${load.sent} old-route requests, ${load.failures.length} failed; ` +
        `${PUBLISHES} publishes and probes in ${publishMs.toFixed(0)} ms (the publish calls ` +
        `${publishCalls.toFixed(0)} ms); old-route latency ` +
        `p50 ${percentile(load.latencies, 0.5)} ms, p99 ${percentile(load.latencies, 0.99)} ms`,
    );
    const late = served.filter((s) => s.ms > BOUND_MS);
    assert.deepEqual(late, [], `served later than ${BOUND_MS} ms after the publish`);
    assert.deepEqual(load.failures.slice(0, 10), [], `${load.failures.length} old-route failures`);
    // The load is there to be served *during* the rebuilds: every publish, from its call until
    // all nodes served it, saw old-route answers. (A count over the whole run was a proxy for
    // this that a fast run — 20 publishes in 4.3 s — fell under.)
    const unloaded = windows.filter((w) => !load.answeredAt.some((a) => a >= w.from && a <= w.to));
    assert.deepEqual(unloaded, [], "publishes with no old-route request answered meanwhile");
    await measureRebuild(t, db.url);
  } finally {
    stop.set = true;
    await Promise.all(nodes.map((n) => n.stop()));
    await db.drop();
  }
}

for (const backend of [{ name: "postgres" }, { name: "mysql" }] as const) {
  void describe(`1,000 new routes reach three nodes on ${backend.name}`, async () => {
    const options = await backendTestOptions(backend);
    void it("within 2 s of each publish; old routes never fail", options, (t) => run(t, backend));
  });
}
