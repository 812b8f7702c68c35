/**
 * Real processes on PostgreSQL and MariaDB: API-only nodes (`taskflow serve
 * --no-worker`, with and without --workflows) start runs that a separate
 * `taskflow worker` executes. SQLite is left out: one process per SQLite file
 * (test/store/sqlite-process-lock.test.ts).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { builtCli } from "../support/built-cli.ts";
import { startServer, type ServerProcess } from "../support/server-process.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const FLOWS = "test/durable/support/served-flows.ts";
const KEY = "served-key-0123456789abcdefghij";
const env = (url: string) => ({
  DATABASE_URL: url,
  NODE_ENV: "production",
  WF_API_KEYS: KEY,
  LOG_LEVEL: "silent",
  // Not a load test: on a busy shared machine the delay check sheds the first requests (503).
  WF_MAX_EVENT_LOOP_DELAY: "0",
});

/** A run or a problem, whichever came. */
interface Answer {
  status?: string;
  output?: unknown;
  code?: string;
  detail?: string;
}

async function call(node: ServerProcess, method: "GET" | "POST", path: string, body?: unknown) {
  const r = await fetch(`http://127.0.0.1:${node.port}${path}`, {
    method,
    headers: {
      "x-api-key": KEY,
      "x-actor-id": "alice",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await r.json()) as Answer;
  return { status: r.status, type: r.headers.get("content-type"), body: answer };
}

/** `taskflow worker --workflows FLOWS`; resolves once it says it runs. */
async function startWorkerProcess(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, builtCli(["worker", "--workflows", FLOWS]), {
    cwd: root,
    env: { ...process.env, ...env(url) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("running workflows doubler")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
  return child;
}

function suite(b: Backend) {
  describe(`served workflows on ${b.name}: API-only nodes and a worker process`, async () => {
    const options = await backendTestOptions(b);
    it(
      "runs started on `serve --no-worker` complete on `taskflow worker`; unknown names are 404",
      options,
      async () => {
        const db = await createTestDatabase(b);
        const nodes: ServerProcess[] = [];
        let worker: ChildProcess | undefined;
        try {
          const [bare, named] = await Promise.all([
            startServer(env(db.url), ["--no-worker"]),
            startServer(env(db.url), ["--no-worker", "--workflows", FLOWS]),
          ]);
          nodes.push(bare, named);
          // No worker has served `doubler` yet: only the node that has its name accepts it.
          const early404 = await call(bare, "POST", "/v1/workflows/doubler/runs", { input: 1 });
          assert.equal(early404.status, 404, JSON.stringify(early404.body));
          assert.match(early404.type ?? "", /^application\/problem\+json/);
          assert.equal(early404.body.code, "NotFound");
          const early = await call(named, "POST", "/v1/workflows/doubler/runs", {
            id: "early",
            input: 1,
          });
          assert.equal(early.status, 201, JSON.stringify(early.body));
          // --no-worker: nothing executes it here.
          await sleep(1_500);
          assert.equal((await call(named, "GET", "/v1/runs/early")).body.status, "pending");

          worker = await startWorkerProcess(db.url);
          const late = await call(bare, "POST", "/v1/workflows/doubler/runs", {
            id: "late",
            input: 21,
          });
          assert.equal(late.status, 201, JSON.stringify(late.body));
          for (const [id, output] of [
            ["early", 2],
            ["late", 42],
          ] as const) {
            let run: { status?: string; output?: unknown } = {};
            for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
              run = (await call(bare, "GET", `/v1/runs/${id}`)).body;
              if (run.status === "completed") break;
            }
            assert.deepEqual([run.status, run.output], ["completed", output], id);
          }
          for (const node of nodes) {
            const unknown = await call(node, "POST", "/v1/workflows/nope/runs", {});
            assert.equal(unknown.status, 404);
            assert.equal(unknown.body.code, "NotFound");
            assert.match(unknown.body.detail ?? "", /workflow 'nope' was not found/);
          }
        } finally {
          worker?.kill("SIGKILL");
          await Promise.all(nodes.map((n) => n.stop()));
          await db.drop();
        }
      },
    );
  });
}

for (const b of backends.filter((x) => x.name !== "sqlite")) suite(b);
