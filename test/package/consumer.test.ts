/**
 * The package as a user installs it: `npm pack` of the build that `npm ci`
 * made (its `prepare`), installed into a new project outside the repository, then
 * (a) a plain `.mjs` app embeds the engine on SQLite, runs a workflow with a
 *     human task to completion and drives it through `taskflow/client`;
 * (b) a TypeScript consumer (`module: NodeNext`, strict, no skipLibCheck)
 *     type-checks with zero errors;
 * (c) the installed `taskflow` binary serves a TypeScript workflow module that
 *     lives in the consumer project and imports "taskflow";
 * and the tarball ships the build, README, LICENSE and docs only, with types
 * that @arethetypeswrong/cli finds sound for ESM consumers.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort } from "../support/server-process.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const fixtures = fileURLToPath(new URL("./consumer/", import.meta.url));
const require = createRequire(import.meta.url);
const KEY = "consumer-key-0123456789abcdef";

let dir = "";
let tarball = "";
let project = "";

before(async () => {
  await assertBuildIsFresh();
  dir = await mkdtemp(join(tmpdir(), "tf-package-"));
  // --ignore-scripts: `prepare` would rebuild dist/ in place, and the build
  // starts by deleting it, under the other test files that run the built CLI
  // beside this one (test/server/cli.test.ts); it would also cost ~15 s of CPU.
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", dir],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  assert.ok(packed, "npm pack printed no file");
  tarball = join(dir, packed.filename);
  project = join(dir, "consumer");
  await cp(fixtures, project, { recursive: true });
  const typesNode = (require("@types/node/package.json") as { version: string }).version;
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies: { taskflow: `file:${tarball}` },
      devDependencies: { "@types/node": typesNode },
    }),
  );
  // --ignore-scripts, then the repository's own better-sqlite3 binary: its
  // install script compiles from source here (~2.5 min; prebuilt binaries cannot
  // be downloaded on this machine), and the binary is the same for the same
  // version and Node. Anything else the consumer runs is what npm installed.
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: project,
    maxBuffer: 64 * 1024 * 1024,
  });
  const ours = require("better-sqlite3/package.json") as { version: string };
  const theirs = JSON.parse(
    await readFile(join(project, "node_modules/better-sqlite3/package.json"), "utf8"),
  ) as { version: string };
  assert.equal(theirs.version, ours.version, "the consumer got another better-sqlite3");
  await cp(
    join(root, "node_modules/better-sqlite3/build"),
    join(project, "node_modules/better-sqlite3/build"),
    { recursive: true },
  );
});

after(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

/** The tarball is the build on disk: a source edited since would not be in it. */
async function assertBuildIsFresh() {
  const built = await stat(join(root, "dist/index.js")).catch(() => undefined);
  assert.ok(built, "dist/ is missing: npm ci builds it (or npm run build)");
  const sources = await readdir(join(root, "src"), { recursive: true });
  for (const f of sources.filter((f) => f.endsWith(".ts"))) {
    const changed = (await stat(join(root, "src", f))).mtimeMs;
    assert.ok(changed <= built.mtimeMs, `src/${f} is newer than dist/: run npm run build`);
  }
}

test("the tarball ships dist/, bin/, docs/, README.md and LICENSE; no sources, tests, benchmarks or CI", async () => {
  const { stdout } = await run("tar", ["tzf", tarball]);
  const files = stdout.trim().split("\n");
  const tops = new Set(files.map((f) => f.replace(/^package\//, "").split("/")[0]));
  assert.deepEqual([...tops].sort(), [
    "LICENSE",
    "README.md",
    "bin",
    "dist",
    "docs",
    "package.json",
  ]);
  for (const f of [
    "package/dist/index.js",
    "package/dist/index.d.ts",
    "package/dist/client/index.js",
  ]) {
    assert.ok(files.includes(f), `${f} missing`);
  }
  assert.ok(!files.some((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")), "a .ts source shipped");
});

test("the declaration files import .js, never a .ts source that is not shipped", async () => {
  const dist = join(project, "node_modules/taskflow/dist");
  const entries = await readdir(dist, { recursive: true });
  const offenders: string[] = [];
  for (const e of entries.filter((e) => e.endsWith(".d.ts"))) {
    const text = await readFile(join(dist, e), "utf8");
    if (/from\s+["']\.{1,2}\/[^"']+\.ts["']/.test(text)) offenders.push(e);
  }
  assert.deepEqual(offenders, []);
});

test("@arethetypeswrong/cli finds the types sound for ESM consumers (node16 and bundlers)", async () => {
  const attw = join(root, "node_modules/.bin/attw");
  await run(attw, [tarball, "--profile", "esm-only", "--format", "ascii"]);
});

test("a plain .mjs app embeds the engine on SQLite and uses the client against the served API", async () => {
  const { stdout } = await run(process.execPath, ["app.mjs", join(dir, "app.db")], {
    cwd: project,
    timeout: 60_000,
  });
  const seen = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as unknown;
  assert.deepEqual(seen, { status: "completed", output: { doubled: 42, action: "approve" } });
});

test("a TypeScript consumer with module NodeNext type-checks with zero errors", async () => {
  const tsc = require.resolve("typescript/bin/tsc");
  const out = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).then(
    (r) => r.stdout,
    (e: Error & { stdout?: string }) => e.stdout ?? e.message,
  );
  assert.equal(out.trim(), "", out);
});

test("the installed binary serves a TypeScript workflow module that imports the package", async () => {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    ["node_modules/taskflow/bin/taskflow.js", "serve", "--workflows", "flows.ts"],
    {
      cwd: project,
      env: {
        ...process.env,
        NODE_ENV: "production",
        ADDR: `127.0.0.1:${port}`,
        DATABASE_URL: `sqlite:${join(dir, "cli.db")}`,
        WF_API_KEYS: KEY,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", r));
  try {
    const base = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok, stderr);
    const headers = { "x-api-key": KEY, "x-actor-id": "alice", "content-type": "application/json" };
    const started = await fetch(`${base}/v1/workflows/greet/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ input: { name: "consumer" } }),
    });
    assert.equal(started.status, 201, await started.clone().text());
    const { runId } = (await started.json()) as { runId: string };
    const run = await until(async () => {
      const r = (await (await fetch(`${base}/v1/runs/${runId}`, { headers })).json()) as {
        status: string;
        output: unknown;
      };
      return r.status === "completed" ? r : undefined;
    }, stderr);
    assert.deepEqual(run.output, { text: "hello, consumer" });
  } finally {
    proc.kill("SIGTERM");
  }
  assert.equal(await exited, 0, `exit after SIGTERM; stderr: ${stderr}`);
});

/** Up to 60 s: a cold start of the installed binary with a TypeScript module takes 10–25 s on a busy 2-core machine. */
async function until<T>(probe: () => Promise<T | undefined>, context: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    await sleep(50);
  }
  throw new Error(`timed out; ${context}`);
}
