/** The `taskflow` command as a user runs it: a real process, real exit codes. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

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
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
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
    assert.match(r.stderr, /taskflow --help/);
  }
});

void test("the bin shim runs the TypeScript CLI", async () => {
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
  const m = await run(["migrate"]).exited;
  assert.equal(m.code, 0, m.stderr);
  const s = run(
    ["serve"],
    { NODE_ENV: "production", WF_API_KEYS: "k1", ADDR: "127.0.0.1:0", LOG_LEVEL: "warn" },
    /listening on (http:\/\/\S+)/,
  );
  await Promise.race([s.ready, s.exited.then((r) => assert.fail(`exited: ${r.stderr}`))]);
  const base = /listening on (http:\/\/\S+)/.exec(s.out.stdout)![1]!;
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  assert.equal((await fetch(`${base}/v1/definitions`)).status, 401);
  assert.equal(
    (await fetch(`${base}/v1/definitions`, { headers: { "x-api-key": "k1" } })).status,
    200,
  );
  s.proc.kill("SIGTERM");
  const r = await s.exited;
  assert.equal(r.code, 0, r.stderr);
});

// The rate-limit setting as `serve` reads it (the rest: test/unit/server/rate-limit.test.ts).
void test("taskflow serve with WF_RATE_LIMIT=abc exits 1 with one line naming the setting", async () => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ADDR|DATABASE_URL|WF_.*|LOG_LEVEL|BODY_LIMIT|TASKFLOW_CONFIG)$/.test(k),
    ),
  );
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve"], {
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
