/**
 * The `taskflow` command as a user runs it: a real process, real exit codes.
 * The process is the built CLI (test/support/built-cli.ts), the code a user
 * runs, so every exit code, message and signal checked here is still the real
 * process's; only the tsx compile at each start is gone.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { writeFileSync } from "node:fs";
import { ENVIRONMENT_VARIABLES } from "../../src/config/env-layer.ts";
import { builtCli } from "../support/built-cli.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "taskflow-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment without the caller's TaskFlow settings, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL|BODY_LIMIT|TASKFLOW_CONFIG)$/.test(k),
    ),
  );
  return { ...base, DATABASE_URL: `sqlite:${join(dir, "cli.db")}`, ...env };
}

function run(args: string[], env: Record<string, string> = {}, untilOutput?: RegExp) {
  const proc = spawn(process.execPath, builtCli(args), {
    cwd: root,
    env: cleanEnv(env),
  });
  const out: Run = { code: null, stdout: "", stderr: "" };
  const exited = new Promise<Run>((resolve) =>
    proc.on("exit", (code) => resolve({ ...out, code })),
  );
  const ready = new Promise<void>((resolve) => {
    proc.stdout.on("data", (c: Buffer) => {
      out.stdout += c.toString();
      if (untilOutput?.test(out.stdout)) resolve();
    });
  });
  proc.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  return { proc, exited, ready, out };
}

void test("serve outside development without WF_API_KEYS: exit 1, one line naming WF_API_KEYS", async () => {
  for (const env of [{}, { NODE_ENV: "production" }] as Record<string, string>[]) {
    const r = await run(["serve"], env).exited;
    assert.equal(r.code, 1);
    assert.match(r.stderr, /WF_API_KEYS/);
    assert.match(r.stderr, /NODE_ENV/);
    assert.equal(r.stderr.trim().split("\n").length, 1, "one line, no stack trace");
  }
});

void test("serve in production with a key shorter than 24 characters: exit 1, how to generate one, not the key", async () => {
  const r = await run(["serve"], { NODE_ENV: "production", WF_API_KEYS: "s3cr3t" }).exited;
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /WF_API_KEYS: key #1 has 6 characters; outside development a key needs at least 24/,
  );
  assert.match(r.stderr, /randomBytes\(32\)/);
  assert.ok(!r.stderr.includes("s3cr3t"), "the key itself is printed");
});

void test("a bad setting: exit 1 naming the layer and the variable", async () => {
  const r = await run(["serve"], { NODE_ENV: "development", ADDR: "nowhere" }).exited;
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr.trim(),
    'taskflow: config error: environment ADDR: "nowhere" is not host:port',
  );
});

void test("--help and help exit 0; unknown or missing command exits 2", async () => {
  for (const args of [["--help"], ["-h"], ["help"]]) {
    const r = await run(args).exited;
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage: taskflow/);
  }
  for (const args of [["frobnicate"], [], ["serve", "--bogus"], ["serve", "extra"]]) {
    const r = await run(args).exited;
    assert.equal(r.code, 2, args.join(" "));
    // A known command's error points to its own help (cli-help.test.ts).
    assert.match(r.stderr, args[0] === "serve" ? /taskflow serve --help/ : /taskflow --help/);
  }
});

void test("the bin runs the compiled CLI (dist/, built by npm ci)", async () => {
  const proc = spawn(process.execPath, ["bin/taskflow.js", "--help"], {
    cwd: root,
    env: cleanEnv({}),
  });
  let stdout = "";
  proc.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  const code = await new Promise((resolve) => proc.on("exit", resolve));
  assert.equal(code, 0);
  assert.match(stdout, /Usage: taskflow/);
});

void test("migrate needs no API key; serve listens, answers and stops on SIGTERM", async () => {
  const fresh = { DATABASE_URL: `sqlite:${join(dir, "migrate.db")}` };
  const m = await run(["migrate"], fresh).exited;
  assert.equal(m.code, 0, m.stderr);
  assert.match(
    m.stdout,
    /taskflow: applied \d+ migration\(s\): 001_initial_schema, 002_durable_runs/,
  );
  const again = await run(["migrate"], fresh).exited;
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /no migration pending; the database is up to date/);
  const key = "k1-0123456789abcdefghijkl";
  const s = run(
    ["serve"],
    { NODE_ENV: "production", WF_API_KEYS: key, ADDR: "127.0.0.1:0", LOG_LEVEL: "warn" },
    /listening on (http:\/\/\S+)/,
  );
  await Promise.race([s.ready, s.exited.then((r) => assert.fail(`exited: ${r.stderr}`))]);
  const base = /listening on (http:\/\/\S+)/.exec(s.out.stdout)![1]!;
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  assert.equal((await fetch(`${base}/v1/definitions`)).status, 401);
  assert.equal(
    (await fetch(`${base}/v1/definitions`, { headers: { "x-api-key": key } })).status,
    200,
  );
  s.proc.kill("SIGTERM");
  const r = await s.exited;
  assert.equal(r.code, 0, r.stderr);
});

void test("--help names every environment variable the configuration reads", async () => {
  const r = await run(["--help"]).exited;
  for (const name of [...ENVIRONMENT_VARIABLES, "WF_GROUP_<id>", "TASKFLOW_CONFIG"]) {
    assert.ok(r.stdout.includes(name), `${name} missing from --help`);
  }
});

void test("health: 1 when nothing answers on ADDR; 0 (and --ready 0) against a serving node", async () => {
  const down = await run(["health"], { ADDR: "127.0.0.1:9" }).exited;
  assert.equal(down.code, 1);
  assert.match(down.stderr, /127\.0\.0\.1:9\/healthz: no answer/);
  const s = run(
    ["serve"],
    { NODE_ENV: "development", ADDR: "127.0.0.1:0", LOG_LEVEL: "warn" },
    /listening on (http:\/\/\S+)/,
  );
  await Promise.race([s.ready, s.exited.then((r) => assert.fail(`exited: ${r.stderr}`))]);
  const addr = /listening on http:\/\/(\S+)/.exec(s.out.stdout)![1]!;
  try {
    const live = await run(["health"], { ADDR: addr }).exited;
    assert.equal(live.code, 0, live.stderr);
    assert.match(live.stdout, /\/healthz: 200 ok/);
    const ready = await run(["health", "--ready"], { ADDR: addr }).exited;
    assert.equal(ready.code, 0, ready.stderr);
    assert.match(ready.stdout, /\/readyz: 200 ok/);
  } finally {
    s.proc.kill("SIGTERM");
    await s.exited;
  }
});

void test("serve on a port in use: exit 1, one line that says how to pick another with ADDR", async () => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  const port = (taken.address() as { port: number }).port;
  try {
    const r = await run(["serve"], { NODE_ENV: "development", ADDR: `127.0.0.1:${port}` }).exited;
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`ADDR 127\\.0\\.0\\.1:${port}: the address is in use`));
    assert.match(r.stderr, new RegExp(`e\\.g\\. ADDR=127\\.0\\.0\\.1:${port + 1}`));
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  } finally {
    taken.close();
  }
});

void test("serve --workflows says which workflows it serves; a CommonJS .js module gets a hint", async () => {
  const flows = join(dir, "flows.mjs");
  // A user's .mjs module imports the compiled package; the built CLI registers
  // a TypeScript loader only for .ts modules, so src/index.ts would not load.
  const api = new URL("../../dist/index.js", import.meta.url).href;
  writeFileSync(
    flows,
    `import { workflow } from ${JSON.stringify(api)};\n` +
      `export const a = workflow("alpha", async () => 1);\n` +
      `export const b = workflow("beta", async () => 2);\n`,
  );
  const s = run(
    ["serve", "--workflows", flows],
    { NODE_ENV: "development", ADDR: "127.0.0.1:0", LOG_LEVEL: "warn" },
    /serving workflows .*\n/,
  );
  await Promise.race([s.ready, s.exited.then((r) => assert.fail(`exited: ${r.stderr}`))]);
  assert.match(s.out.stdout, /taskflow: serving workflows alpha, beta/);
  s.proc.kill("SIGTERM");
  await s.exited;

  // A .js file with import syntax in a project declared CommonJS (without "type",
  // Node 20.19+ detects the syntax and loads it as ESM with a warning).
  const cjs = join(dir, "cjs");
  mkdirSync(cjs);
  writeFileSync(join(cjs, "package.json"), '{ "type": "commonjs" }');
  writeFileSync(join(cjs, "flows.js"), `import { workflow } from ${JSON.stringify(api)};\n`);
  // Through the bin itself, as a user starts it: under tsx a .js file may mix the two.
  const proc = spawn(
    process.execPath,
    ["bin/taskflow.js", "worker", "--workflows", join(cjs, "flows.js")],
    { cwd: root, env: cleanEnv({}) },
  );
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise((resolve) => proc.on("exit", resolve));
  const r = { code, stderr };
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--workflows .*flows\.js: Node loads this \.js file as CommonJS/);
  assert.match(r.stderr, /"type": "module"/);
});

void test("npm start stops cleanly on SIGTERM sent to npm: the server closes its port", async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const npm = spawn("npm", ["start", "--silent"], {
    cwd: root,
    env: cleanEnv({ ADDR: `127.0.0.1:${port}`, LOG_LEVEL: "warn" }),
  });
  let stderr = "";
  npm.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => npm.on("exit", resolve));
  const health = () =>
    fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
  for (let i = 0; i < 200 && !(await health()); i++) await sleep(100);
  assert.ok(await health(), `npm start did not serve: ${stderr}`);
  // npm start serves the Console's pages too, from the build npm ci made.
  const page = await fetch(`http://127.0.0.1:${port}/console/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<div id="root">/);
  npm.kill("SIGTERM");
  await Promise.race([exited, sleep(10_000)]);
  assert.notEqual(npm.exitCode ?? npm.signalCode, null, "npm still running 10 s after SIGTERM");
  for (let i = 0; i < 50 && (await health()); i++) await sleep(100);
  assert.equal(await health(), false, "the server still listens after npm exited");
});

// The rate-limit setting as `serve` reads it (the rest: test/unit/server/rate-limit.test.ts).
void test("taskflow serve with WF_RATE_LIMIT=abc exits 1 with one line naming the setting", async () => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ADDR|DATABASE_URL|WF_.*|LOG_LEVEL|BODY_LIMIT|TASKFLOW_CONFIG)$/.test(k),
    ),
  );
  const proc = spawn(process.execPath, builtCli(["serve"]), {
    cwd: root,
    env: {
      ...env,
      NODE_ENV: "development",
      DATABASE_URL: "sqlite::memory:",
      WF_RATE_LIMIT: "abc",
    },
  });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
  assert.equal(code, 1);
  assert.equal(stderr.trim().split("\n").length, 1, stderr);
  assert.match(stderr, /^taskflow: config error: environment WF_RATE_LIMIT: "abc" must be/);
});

void test("--no-worker: documented in --help; a usage error (exit 2) for commands other than serve", async () => {
  const help = await run(["--help"]).exited;
  assert.match(help.stdout, /--no-worker +serve: an API-only node/);
  for (const args of [
    ["worker", "--no-worker", "--workflows", "x.ts"],
    ["migrate", "--no-worker"],
  ]) {
    const r = await run(args).exited;
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, /--no-worker is an option of serve/);
  }
});
