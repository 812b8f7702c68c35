/**
 * `taskflow cache` in-process (runCli with captured output) against a SQLite
 * DATABASE_URL: list-mutations with a fence left by another process,
 * complete-mutation (idempotent), and bad usage or an unknown id as a
 * non-zero exit with one clear line.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { runCli } from "../../src/cli/run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "taskflow-cache-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const DATABASE_URL = `sqlite:${join(dir, "cache.db")}`;
const env = { DATABASE_URL };

async function cli(...args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(["cache", ...args], env, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
  });
  return { code, out, err };
}

test("list-mutations on a fresh database migrates it and lists nothing", async () => {
  const r = await cli("list-mutations");
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /no incomplete cache mutation/);
});

test("a fence left behind is listed, completed once, then no longer listed", async () => {
  const database = openDatabase(DATABASE_URL);
  try {
    await database.migrate();
    const fence = await database.cacheLedger.beginMutation("routes", "dead-host/77/boot-9");
    const listed = await cli("list-mutations");
    assert.equal(listed.code, 0, listed.err);
    const [header, row, extra] = listed.out.trimEnd().split("\n");
    assert.match(header!, /^ID\s+MUTATION\s+SCOPE\s+OWNER\s+CREATED\s+AGE$/);
    assert.ok(row!.includes(fence.mutationId) && row!.includes("dead-host/77/boot-9"), row);
    assert.match(row!, /\broutes\b/);
    assert.equal(extra, undefined);

    const before = await database.cacheLedger.routesRevision();
    const done = await cli("complete-mutation", fence.mutationId);
    assert.equal(done.code, 0, done.err);
    assert.match(done.out, /^completed cache mutation/);
    const after = await database.cacheLedger.routesRevision();
    assert.ok(after > before, `revision ${after} after ${before}`);
    const again = await cli("complete-mutation", fence.mutationId);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /already completed; nothing changed/);
    assert.match((await cli("list-mutations")).out, /no incomplete cache mutation/);
  } finally {
    await database.close();
  }
});

test("an unknown mutation id exits 1 naming it", async () => {
  const r = await cli("complete-mutation", "no-such-fence");
  assert.equal(r.code, 1);
  assert.equal(r.err, "taskflow: cache mutation 'no-such-fence' was not found\n");
});

test("bad usage exits 2 with one line", async () => {
  for (const [args, message] of [
    [["complete-mutation"], /needs the mutation id/],
    [["complete-mutation", "a", "b"], /unexpected argument 'b'/],
    [["complete-mutation", "has space"], /is not a mutation id/],
    [["list-mutations", "x"], /unexpected argument 'x'/],
    [["prune"], /unknown cache command 'prune'/],
    [["list-mutations", "--bogus"], /bogus/],
  ] as const) {
    const r = await cli(...args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.err, message);
    assert.match(r.err, /taskflow cache --help/);
    assert.equal(r.err.split("\n").length, 2, "one line");
  }
});

test("--help prints the commands; no command is usage (exit 2)", async () => {
  const help = await cli("--help");
  assert.equal(help.code, 0);
  assert.match(help.out, /list-mutations/);
  assert.match(help.out, /complete-mutation ID/);
  assert.equal((await cli()).code, 2);
  let out = "";
  await runCli(["--help"], env, { out: (t) => void (out += t), err: () => undefined });
  assert.match(out, /cache complete-mutation <id>/);
});
