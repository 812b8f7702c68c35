/**
 * `taskflow keys`: what it accepts, the clear errors (exit 2 or 1) for what it
 * does not, and the store every command names.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseKeysArgs } from "../../src/cli/keys-command.ts";
import { keysStore } from "../../src/cli/keys-store.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { parseExpiry } from "../../src/cli/parse-expiry.ts";
import { runCli } from "../../src/cli/run-cli.ts";

async function cli(args: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = await runCli(args, env, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

void test("--help lists the keys commands", async () => {
  const r = await cli(["--help"]);
  assert.equal(r.code, 0);
  for (const c of ["keys create --name", "keys list", "keys revoke <id>", "keys rotate <id>"]) {
    assert.ok(r.out.includes(c), c);
  }
});

void test("bad usage: exit 2, one line saying what is wrong", async () => {
  const cases: [string[], RegExp][] = [
    [["keys"], /keys needs a command/],
    [["keys", "make"], /unknown keys command 'make'/],
    [["keys", "create"], /keys create needs --name/],
    [["keys", "create", "--name", "ci", "extra"], /unexpected argument 'extra'/],
    [["keys", "create", "--name", "ci", "--expires", "soon"], /--expires 'soon'.*90d/],
    [["keys", "create", "--name", "ci", "--expires", "2001-01-01"], /not in the future/],
    [["keys", "list", "--name", "x"], /belong to 'keys create'/],
    [["keys", "revoke"], /needs the key's id/],
    [["keys", "rotate", `tfk_${"a".repeat(43)}`], /the key's id, not the key itself/],
    [["serve", "--tenant", "acme"], /belong to 'keys create'/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args, { NODE_ENV: "production" });
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.err, message);
    assert.equal(r.err.trim().split("\n").length, 1);
    assert.equal(r.out, "");
  }
});

void test("memory coordination: exit 1, stored keys need sql or redis", async () => {
  const r = await cli(["keys", "list"], { NODE_ENV: "production", WF_COORDINATION: "memory" });
  assert.equal(r.code, 1);
  assert.match(r.err, /WF_COORDINATION is memory.*sql or redis/);
});

void test("without DATABASE_URL: every command names ./taskflow.db; list and revoke do not create it, create does", async () => {
  const dir = mkdtempSync(join(tmpdir(), "taskflow-keys-"));
  const cwd = process.cwd();
  // The default store is relative to the working directory: the test's own, empty one.
  process.chdir(dir);
  try {
    const env = { NODE_ENV: "production" };
    const named = /^taskflow: API keys in the SQLite file \.\/taskflow\.db \(DATABASE_URL is unset/;
    const empty = await cli(["keys", "list"], env);
    assert.equal(empty.code, 0, empty.err);
    assert.match(empty.err, named);
    assert.match(empty.out, /no API keys are stored: \.\/taskflow\.db does not exist/);
    const revoke = await cli(["keys", "revoke", "abc"], env);
    assert.equal(revoke.code, 1);
    assert.match(revoke.err, /no live API key has id 'abc' \(\.\/taskflow\.db does not exist\)/);
    assert.equal(existsSync(join(dir, "taskflow.db")), false, "a read created the database");

    const created = await cli(["keys", "create", "--name", "first"], env);
    assert.equal(created.code, 0, created.err);
    assert.match(created.err, named);
    assert.ok(existsSync(join(dir, "taskflow.db")));
    const listed = await cli(["keys", "list"], env);
    assert.equal(listed.code, 0, listed.err);
    assert.match(listed.err, named);
    assert.match(listed.out, /first/);

    const other = `sqlite:${join(dir, "other.db")}`;
    const elsewhere = await cli(["keys", "create", "--name", "x"], { ...env, DATABASE_URL: other });
    assert.equal(elsewhere.code, 0, elsewhere.err);
    await cli(["keys", "revoke", /created API key (\S+)/.exec(elsewhere.err)![1]!], {
      ...env,
      DATABASE_URL: other,
    });
    const none = await cli(["keys", "list"], { ...env, DATABASE_URL: other });
    assert.match(none.err, new RegExp(`API keys in DATABASE_URL ${other}`));
    assert.match(none.out, /^ID +NAME/, "the revoked key is listed");
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
});

void test("the store's words: no password, the key prefix when it is not the default, Redis", () => {
  const store = (env: Record<string, string>) =>
    keysStore(loadConfig({ env: { NODE_ENV: "production", ...env }, requireApiKeys: false }));
  const pg = store({ DATABASE_URL: "postgres://taskflow:s3cret@db:5432/taskflow" });
  assert.equal(pg, "DATABASE_URL postgres://taskflow:***@db:5432/taskflow");
  const prefixed = store({ DATABASE_URL: "sqlite:./a.db", WF_KEY_PREFIX: "staging:" });
  assert.equal(prefixed, "DATABASE_URL sqlite:./a.db (key prefix 'staging:')");
  const redis = store({ WF_COORDINATION: "redis", REDIS_URL: "redis://:pw@cache:6379" });
  assert.ok(redis.startsWith("Redis redis://:***@cache:6379"), redis);
  assert.ok(!redis.includes("pw@"), redis);
});

void test("parseKeysArgs: create with tenant and expiry, list, revoke, rotate", () => {
  const created = parseKeysArgs({
    positionals: ["create"],
    name: "bff",
    tenant: "acme",
    expires: "90d",
  });
  assert.ok(typeof created === "object" && created.action === "create");
  assert.equal(created.tenant, "acme");
  const days = (created.expiresAt!.getTime() - Date.now()) / 86_400_000;
  assert.ok(days > 89.99 && days <= 90, String(days));
  assert.deepEqual(parseKeysArgs({ positionals: ["list"] }), { action: "list" });
  assert.deepEqual(parseKeysArgs({ positionals: ["revoke", "abc"] }), {
    action: "revoke",
    id: "abc",
  });
  assert.deepEqual(parseKeysArgs({ positionals: ["rotate", "abc"] }), {
    action: "rotate",
    id: "abc",
  });
});

void test("parseExpiry: lifetimes and ISO dates; anything else is a message", () => {
  const now = new Date("2030-01-01T00:00:00Z");
  assert.deepEqual(parseExpiry("12h", now), new Date("2030-01-01T12:00:00Z"));
  assert.deepEqual(parseExpiry("365d", now), new Date("2031-01-01T00:00:00Z"));
  assert.deepEqual(parseExpiry("2030-06-01", now), new Date("2030-06-01T00:00:00Z"));
  assert.deepEqual(parseExpiry("2030-06-01T10:00:00+02:00", now), new Date("2030-06-01T08:00:00Z"));
  for (const bad of [
    "",
    "0d",
    "-1d",
    "90",
    "90 days",
    "1y",
    "2030-13-01",
    "tomorrow",
    "2029-12-31",
  ]) {
    assert.equal(typeof parseExpiry(bad, now), "string", bad);
  }
});
