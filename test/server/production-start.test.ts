/**
 * Every process start a user makes, made as the user makes it, in production
 * (NODE_ENV=production): `npm start`, and the built bin's `taskflow serve`,
 * `taskflow console` and `taskflow worker`. With WF_API_KEYS each server
 * reaches /healthz and /readyz and serves the API with the key; without it,
 * each refuses to start in one line naming WF_API_KEYS. A worker serves no
 * HTTP and needs no key: it runs what a server accepted (on PostgreSQL: two
 * processes share no SQLite file). These spawn the
 * build (dist/), so run `npm run build` after changing src/.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../support/backends.ts";
import { freePort } from "../support/server-process.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "taskflow-prod-start-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const KEY = "prod-start-key-0123456789abcdef";
/** The built CLI is slower to start while other test files run beside it. */
const START_MS = 60_000;

/** The environment without the caller's TaskFlow settings, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL|TASKFLOW_CONFIG|REDIS_.*|npm_.*)$/.test(k),
    ),
  );
  return { ...base, ...env };
}

interface Started {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

function start(command: string, args: string[], env: Record<string, string>): Started {
  const proc = spawn(command, args, { cwd: root, env: cleanEnv(env) });
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  proc.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return {
    proc,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      const killed = sleep(15_000).then(() => {
        proc.kill("SIGKILL");
        return null;
      });
      return Promise.race([exited, killed]);
    },
  };
}

const bin = (args: string[], env: Record<string, string>) =>
  start(process.execPath, ["bin/taskflow.js", ...args], env);

function production(name: string, port: number, extra: Record<string, string> = {}) {
  return {
    NODE_ENV: "production",
    ADDR: `127.0.0.1:${port}`,
    DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`,
    LOG_LEVEL: "warn",
    WF_USERS: "alice,bob",
    ...extra,
  };
}

/** Polls /healthz until it answers; fails with the output when the process exits first. */
async function reachable(p: Started, base: string): Promise<void> {
  const end = Date.now() + START_MS;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return;
    if (p.proc.exitCode !== null || Date.now() > end) {
      assert.fail(`not serving (exit ${p.proc.exitCode}):\n${p.stdout()}\n${p.stderr()}`);
    }
    await sleep(100);
  }
}

/** /healthz and /readyz answer 200, and the API takes the key (and refuses without it). */
async function serves(base: string): Promise<void> {
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  const ready = await fetch(`${base}/readyz`);
  assert.equal(ready.status, 200, await ready.text());
  assert.equal((await fetch(`${base}/v1/definitions`)).status, 401);
  const withKey = await fetch(`${base}/v1/definitions`, { headers: { "x-api-key": KEY } });
  assert.equal(withKey.status, 200, await withKey.text());
}

test("without WF_API_KEYS every server start refuses in one line naming WF_API_KEYS", async () => {
  const starts = await Promise.all(
    [
      ["npm", ["start", "--silent"]],
      [process.execPath, ["bin/taskflow.js", "serve"]],
      [process.execPath, ["bin/taskflow.js", "console"]],
    ].map(async ([command, args], i) => {
      const p = start(command as string, args as string[], production(`nokey-${i}`, 9));
      return { what: (args as string[]).join(" "), code: await p.exited, stderr: p.stderr() };
    }),
  );
  for (const s of starts) {
    assert.equal(s.code, 1, `${s.what}: ${s.stderr}`);
    assert.match(s.stderr, /WF_API_KEYS/, s.what);
    const lines = s.stderr.trim().split("\n");
    assert.equal(lines.length, 1, `${s.what}: one line, no stack: ${s.stderr}`);
  }
});

test("npm start in production with a key: the API is served; the Console, with no login configured, is off in one warning", async () => {
  const port = await freePort();
  const p = start("npm", ["start", "--silent"], production("npm", port, { WF_API_KEYS: KEY }));
  try {
    const base = `http://127.0.0.1:${port}`;
    await reachable(p, base);
    await serves(base);
    const off = p
      .stdout()
      .split("\n")
      .filter((l) => l.includes("console: off"));
    assert.equal(off.length, 1, p.stdout());
    assert.match(off[0] ?? "", /WF_CONSOLE_OIDC_ISSUER/);
    assert.match(p.stdout(), /taskflow: Console off: no login configured/);
    assert.equal((await fetch(`${base}/console/api/session`)).status, 404);
  } finally {
    // npm's own exit code on SIGTERM varies by version; the server's stop is cli.test.ts's.
    await p.stop();
  }
});

test("taskflow serve and taskflow console in production with a key; the Console's login by OpenID Connect", async () => {
  const [servePort, consolePort] = [await freePort(), await freePort()];
  const serve = bin(["serve"], production("serve", servePort, { WF_API_KEYS: KEY }));
  const console = bin(
    ["console"],
    production("console", consolePort, {
      WF_API_KEYS: KEY,
      // Discovered at the first login, so the provider need not be up for the start.
      WF_CONSOLE_OIDC_ISSUER: "https://id.example.com",
      WF_CONSOLE_OIDC_CLIENT_ID: "taskflow-console",
      WF_CONSOLE_OIDC_CLIENT_SECRET: "oidc-client-secret-value",
      WF_CONSOLE_OIDC_REDIRECT_URL: "https://console.example.com/console/api/auth/oidc/callback",
    }),
  );
  try {
    const serveBase = `http://127.0.0.1:${servePort}`;
    const consoleBase = `http://127.0.0.1:${consolePort}`;
    await Promise.all([reachable(serve, serveBase), reachable(console, consoleBase)]);
    await serves(serveBase);
    await serves(consoleBase);
    assert.equal((await fetch(`${serveBase}/console/api/auth/methods`)).status, 404);
    const methods = await fetch(`${consoleBase}/console/api/auth/methods`);
    assert.deepEqual(await methods.json(), { code: false, oidc: true, trustedHeader: false });
    assert.match(console.stdout(), /Console API on/);
    for (const p of [serve, console]) {
      assert.ok(!(p.stdout() + p.stderr()).includes(KEY), "the key is not in the output");
    }
    assert.ok(!console.stdout().includes("oidc-client-secret-value"));
  } finally {
    assert.equal(await serve.stop(), 0, serve.stderr());
    assert.equal(await console.stop(), 0, console.stderr());
  }
});

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
