/**
 * Stored API keys as an operator uses them: `taskflow keys ...` processes
 * against the database, a production server process (no WF_API_KEYS) with
 * WF_COORDINATION=sql on SQLite and PostgreSQL, plain HTTP.
 *
 * Checked: a created key works; a tenant-scoped key is 200 on its tenant and
 * 403 elsewhere; an expired key is 401; revoked and rotated keys are 401 (on
 * PostgreSQL while the server runs, once its 5 s cache lets go; on SQLite,
 * one process per file, at the next start); `keys list` shows no secret; no
 * secret is in the server's output (its log) nor anywhere in the database.
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
import { builtCli } from "../support/built-cli.ts";
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
  const proc = spawn(process.execPath, builtCli(args), {
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
  const proc: ChildProcess = spawn(process.execPath, builtCli(["serve"]), {
    cwd: root,
    env: cleanEnv({ ...env, ADDR: `127.0.0.1:${port}` }),
  });
  let output = "";
  proc.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  proc.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  // 60 s, as for every server process the tests start: a loaded machine starts slowly.
  const deadline = Date.now() + 60_000;
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

const envFor = (url: string) => ({
  NODE_ENV: "production",
  DATABASE_URL: url,
  WF_COORDINATION: "sql",
  LOG_LEVEL: "info",
  // Shedding has its own tests; on a loaded machine it must not answer these requests.
  WF_MAX_EVENT_LOOP_DELAY: "0",
});

/** No secret in list output, the server's log or any table. */
async function assertNoSecretLeft(
  backend: Backend["name"],
  url: string,
  outputs: { list: string[]; log: string },
  keys: readonly { key: string }[],
  someId: string,
): Promise<void> {
  const stored = await databaseText(backend, url);
  assert.ok(stored.includes(someId), "the dump holds the keys' rows");
  assert.match(outputs.log, /rejected API key/, "the log was captured");
  for (const { key } of keys) {
    const secret = key.slice("tfk_".length);
    assert.ok(
      outputs.list.every((l) => !l.includes(secret)),
      "a key in keys list",
    );
    assert.ok(!stored.includes(secret), "a plaintext key in the database");
    assert.ok(!outputs.log.includes(secret), "a key in the server's log");
  }
}

/*
 * SQLite is one process per database file: the keys commands run while the
 * server is stopped, and a revocation shows at the next start (no cache yet).
 */
void describe("stored API keys on sqlite (WF_COORDINATION=sql)", async () => {
  const options = await backendTestOptions({ name: "sqlite" });
  void test("create, use, scope, expire; revoke and rotate between runs", options, async () => {
    const database = await createTestDatabase({ name: "sqlite" });
    const env = envFor(database.url);
    let server: Served | undefined;
    let log = "";
    try {
      const ci = await createKey(env, ["--name", "ci"]);
      const acme = await createKey(env, ["--name", "acme-bff", "--tenant", "acme"]);
      const brief = await storeKey(database.url, "brief", new Date(Date.now() + 1000));
      server = await serve(env);
      let { port } = server;
      assert.equal(await status(port, ci.key), 200);
      assert.equal(await status(port, ci.key, "globex"), 200, "unscoped: any tenant");
      assert.equal(await status(port, acme.key, "acme"), 200);
      assert.equal(await status(port, acme.key, "globex"), 403);
      assert.equal(await status(port, acme.key), 403, "the default tenant is another tenant");
      await sleep(Math.max(0, brief.expiresAt!.getTime() - Date.now()));
      assert.equal(await status(port, brief.key), 401, "expired");
      await server.stop();
      log += server.output();
      server = undefined;

      assert.equal((await taskflow(["keys", "revoke", ci.id], env)).code, 0);
      const rotated = await taskflow(["keys", "rotate", acme.id], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const acme2 = { key: rotated.stdout.trim() };
      const listed = await taskflow(["keys", "list"], env);
      assert.match(listed.stdout, new RegExp(`${ci.id}.*revoked`));
      assert.match(listed.stdout, new RegExp(`${brief.id}.*expired`));

      server = await serve(env);
      port = server.port;
      assert.equal(await status(port, ci.key), 401, "revoked");
      assert.equal(await status(port, acme.key, "acme"), 401, "rotated away");
      assert.equal(await status(port, acme2.key, "acme"), 200);
      assert.equal(await status(port, acme2.key, "globex"), 403, "the scope survives rotation");
      log += server.output();
      await assertNoSecretLeft(
        "sqlite",
        database.url,
        { list: [listed.stdout], log },
        [ci, acme, brief, acme2],
        ci.id,
      );
    } finally {
      await server?.stop();
      await database.drop();
    }
  });
});

for (const backend of ["postgres"] as const) {
  void describe(`stored API keys on ${backend} (WF_COORDINATION=sql)`, async () => {
    const options = await backendTestOptions({ name: backend });
    void test("create, use, scope, expire, list, revoke, rotate", options, async () => {
      const database = await createTestDatabase({ name: backend });
      const env = envFor(database.url);
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

        await assertNoSecretLeft(
          backend,
          database.url,
          { list: [listed.stdout, after.stdout], log: server.output() },
          [ci, acme, brief, { key: acme2 }],
          ci.id,
        );
      } finally {
        await server?.stop();
        await database.drop();
      }
    });
  });
}
