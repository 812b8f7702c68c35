/**
 * Stored API keys as an operator uses them: `taskflow keys ...` processes
 * against the database, a production server process (no WF_API_KEYS) with
 * WF_COORDINATION=sql on SQLite and PostgreSQL, plain HTTP.
 *
 * Checked: a created key works; a tenant-scoped key is 200 on its tenant and
 * 403 elsewhere; an expired key is 401; revoked and rotated keys are 401 once
 * the server's cache (5 s) lets go; `keys list` shows no secret; no secret is
 * in the server's output (its log) nor anywhere in the database.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { DEFAULT_KEY_PREFIX } from "../../src/config/defaults.ts";
import { sqlitePathOf } from "../../src/adapters/store/database-url.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { ApiKeys } from "../../src/engine/coordination/api-keys.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../support/backends.ts";
import { freePort } from "../support/server-process.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** The server's answer cache for stored keys, plus room for a loaded machine. */
const CACHE_MS = 5000;
const REVOKE_DEADLINE_MS = CACHE_MS + 4000;

/** The environment without the caller's TaskFlow settings, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL|TASKFLOW_CONFIG|REDIS_.*)$/.test(k),
    ),
  );
  return { ...base, ...env };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function taskflow(args: string[], env: Record<string, string>): Promise<Run> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: root,
    env: cleanEnv(env),
  });
  const run: Run = { code: null, stdout: "", stderr: "" };
  proc.stdout.on("data", (c: Buffer) => (run.stdout += c.toString()));
  proc.stderr.on("data", (c: Buffer) => (run.stderr += c.toString()));
  return new Promise((resolve) => proc.on("exit", (code) => resolve({ ...run, code })));
}

async function createKey(env: Record<string, string>, extra: string[]) {
  const r = await taskflow(["keys", "create", ...extra], env);
  assert.equal(r.code, 0, r.stderr);
  const key = r.stdout.trim();
  assert.match(key, /^tfk_[A-Za-z0-9_-]{43}$/, "stdout is the key alone");
  assert.ok(!r.stderr.includes(key), "the key is on stdout only");
  const id = /created API key (\S+)/.exec(r.stderr)?.[1];
  assert.ok(id !== undefined, r.stderr);
  return { key, id };
}

/** A key stored by this process, through the same database and coordination as the server's. */
async function storeKey(url: string, name: string, expiresAt: Date) {
  const database = openDatabase(url);
  const coordination = openCoordination({
    kind: "sql",
    keyPrefix: DEFAULT_KEY_PREFIX,
    sql: database.coordinationContext,
  });
  try {
    return await new ApiKeys(coordination).create({ name, expiresAt });
  } finally {
    await coordination.close();
    await database.close();
  }
}

interface Served {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** `taskflow serve`, keeping stdout (the JSON log) and stderr. */
async function serve(env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const proc: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/main.ts", "serve"],
    { cwd: root, env: cleanEnv({ ...env, ADDR: `127.0.0.1:${port}` }) },
  );
  let output = "";
  proc.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  proc.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    if (/listening on/.test(output)) break;
    await sleep(100);
  }
  return {
    port,
    output: () => output,
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await Promise.race([exited, sleep(10_000)]);
      if (proc.exitCode === null) proc.kill("SIGKILL");
    },
  };
}

/** Every row of every table, as text: what someone who copied the database would hold. */
async function databaseText(backend: Backend["name"], url: string): Promise<string> {
  if (backend === "sqlite") {
    const db = new Database(sqlitePathOf(url), { readonly: true });
    try {
      const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as {
        name: string;
      }[];
      return tables
        .map((t) => JSON.stringify(db.prepare(`select * from "${t.name}"`).all()))
        .join("\n");
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public'",
    );
    const parts: string[] = [];
    for (const t of tables.rows) {
      const rows = await client.query(`select * from "${t.table_name}"`);
      parts.push(JSON.stringify(rows.rows));
    }
    return parts.join("\n");
  } finally {
    await client.end();
  }
}

async function status(port: number, key: string, tenant?: string): Promise<number> {
  const headers: Record<string, string> = { "x-api-key": key };
  if (tenant !== undefined) headers["x-tenant-id"] = tenant;
  const r = await fetch(`http://127.0.0.1:${port}/v1/definitions`, { headers });
  await r.arrayBuffer();
  return r.status;
}

/** Polls until the key is refused; resolves with how long that took. */
async function until401(port: number, key: string, tenant?: string): Promise<number> {
  const started = Date.now();
  while ((await status(port, key, tenant)) !== 401) {
    assert.ok(Date.now() - started < REVOKE_DEADLINE_MS, "still accepted past the cache");
    await sleep(200);
  }
  return Date.now() - started;
}

for (const backend of ["sqlite", "postgres"] as const) {
  void describe(`stored API keys on ${backend} (WF_COORDINATION=sql)`, async () => {
    const options = await backendTestOptions({ name: backend });
    void test("create, use, scope, expire, list, revoke, rotate", options, async () => {
      const database = await createTestDatabase({ name: backend });
      const env = {
        NODE_ENV: "production",
        DATABASE_URL: database.url,
        WF_COORDINATION: "sql",
        LOG_LEVEL: "info",
        // Shedding has its own tests; on a loaded machine it must not answer these requests.
        WF_MAX_EVENT_LOOP_DELAY: "0",
      };
      let server: Served | undefined;
      try {
        const ci = await createKey(env, ["--name", "ci"]);
        const acme = await createKey(env, ["--name", "acme-bff", "--tenant", "acme"]);
        // No WF_API_KEYS: the stored keys are enough to start in production.
        server = await serve(env);
        const { port } = server;
        // Seconds from expiry: made here, as a CLI process takes longer than that to start
        // (--expires itself is covered by the unit tests).
        const expiresAt = Date.now() + 2000;
        const brief = await storeKey(database.url, "brief", new Date(expiresAt));
        assert.equal(await status(port, ci.key), 200);
        assert.equal(await status(port, ci.key, "globex"), 200, "unscoped: any tenant");
        assert.equal(await status(port, acme.key, "acme"), 200);
        assert.equal(await status(port, acme.key, "globex"), 403);
        assert.equal(await status(port, acme.key), 403, "the default tenant is another tenant");
        assert.equal(await status(port, brief.key), 200);
        assert.equal(await status(port, `tfk_${"x".repeat(43)}`), 401);

        const listed = await taskflow(["keys", "list"], env);
        assert.equal(listed.code, 0, listed.stderr);
        for (const name of ["ci", "acme-bff", "brief"])
          assert.match(listed.stdout, new RegExp(name));
        assert.match(listed.stdout, new RegExp(`${acme.id}\\s+acme-bff\\s+acme\\s`));

        assert.equal((await taskflow(["keys", "revoke", ci.id], env)).code, 0);
        const revokedAfter = await until401(port, ci.key);
        assert.ok(revokedAfter <= REVOKE_DEADLINE_MS);

        const rotated = await taskflow(["keys", "rotate", acme.id], env);
        assert.equal(rotated.code, 0, rotated.stderr);
        const acme2 = rotated.stdout.trim();
        assert.match(acme2, /^tfk_/);
        assert.equal(await status(port, acme2, "acme"), 200);
        assert.equal(await status(port, acme2, "globex"), 403, "the scope survives rotation");
        await until401(port, acme.key, "acme");

        const missing = await taskflow(["keys", "revoke", ci.id], env);
        assert.equal(missing.code, 1, "revoking twice");
        assert.match(missing.stderr, /no live API key has id/);

        await sleep(Math.max(0, expiresAt - Date.now()));
        await until401(port, brief.key);

        const after = await taskflow(["keys", "list"], env);
        assert.match(after.stdout, new RegExp(`${ci.id}.*revoked`));
        assert.match(after.stdout, new RegExp(`${brief.id}.*expired`));

        const secrets = [ci.key, acme.key, brief.key, acme2];
        const stored = await databaseText(backend, database.url);
        assert.ok(stored.includes(ci.id), "the dump holds the keys' rows");
        const log = server.output();
        assert.match(log, /rejected API key/, "the log was captured");
        for (const key of secrets) {
          const secret = key.slice("tfk_".length);
          assert.ok(!listed.stdout.includes(secret) && !after.stdout.includes(secret), "in list");
          assert.ok(!stored.includes(secret), "a plaintext key in the database");
          assert.ok(!log.includes(secret), "a key in the server's log");
        }
      } finally {
        await server?.stop();
        await database.drop();
      }
    });
  });
}
