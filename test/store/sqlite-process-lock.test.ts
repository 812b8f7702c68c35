/**
 * One process per SQLite file (src/adapters/store/dialects/sqlite/process-lock.ts),
 * with real processes: a second one refuses to start, naming DATABASE_URL, the
 * holder's pid and what to do; a holder killed with kill -9 does not block the
 * next start; one process may open the file more than once.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { createTestDatabase } from "../support/backends.ts";
import { builtCli } from "../support/built-cli.ts";
import { freePort, startServer, type ServerProcess } from "../support/server-process.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const KEY = "lock-key-0123456789abcdefghijkl";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
before(async () => {
  db = await createTestDatabase({ name: "sqlite" });
});
after(() => db.drop());

const env = () => ({
  DATABASE_URL: db.url,
  NODE_ENV: "production",
  WF_API_KEYS: KEY,
  LOG_LEVEL: "silent",
  WF_MAX_EVENT_LOOP_DELAY: "0",
});

/** `taskflow <args>` to its end (a serve that starts is killed: it was not meant to). */
async function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, builtCli(args), {
    cwd: root,
    env: { ...process.env, ...env(), ADDR: `127.0.0.1:${await freePort()}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  proc.stdout.on("data", (c: Buffer) => {
    if (c.toString().includes("listening on")) proc.kill("SIGKILL");
  });
  const code = await new Promise<number | null>((r) => proc.on("exit", (c) => r(c)));
  return { code, stderr };
}

test("a second process on the file refuses to start: exit 1, naming DATABASE_URL, the holder's pid and what to do", async () => {
  const first = await startServer(env());
  try {
    for (const args of [
      ["serve"],
      ["worker", "--workflows", "test/durable/support/served-flows.ts"],
      ["migrate"],
    ]) {
      const r = await cli(args);
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      const line = r.stderr.trim();
      assert.equal(line.split("\n").length, 1, `one line, no stack: ${line}`);
      assert.ok(line.includes(`DATABASE_URL ${db.url}:`), line);
      assert.match(line, new RegExp(`another process \\(pid ${first.pid} on `));
      assert.match(line, /one process per SQLite file is the rule/);
      assert.match(line, /Stop that process first, or point DATABASE_URL at another file/);
      assert.match(line, /use PostgreSQL or MariaDB/);
    }
    assert.equal(first.proc.exitCode, null, "the first process still runs");
  } finally {
    await first.stop();
  }
});

test("a holder killed with kill -9 does not block the next start", async () => {
  const first = await startServer(env());
  let second: ServerProcess | undefined;
  try {
    const gone = new Promise((r) => first.proc.once("exit", r));
    first.proc.kill("SIGKILL");
    await gone;
    second = await startServer(env()); // resolves once it answers /healthz
    assert.notEqual(second.pid, first.pid);
  } finally {
    await first.stop();
    await second?.stop();
  }
});

test("one process may open the file twice; the lock lasts until the last close", async () => {
  const a = openDatabase(db.url);
  const b = openDatabase(db.url);
  try {
    await a.migrate();
    await b.ping();
    await a.close();
    await b.ping();
    const refused = await cli(["migrate"]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, new RegExp(`pid ${process.pid} on `));
  } finally {
    await a.close();
    await b.close();
  }
  const allowed = await cli(["migrate"]);
  assert.equal(allowed.code, 0, allowed.stderr);
});
