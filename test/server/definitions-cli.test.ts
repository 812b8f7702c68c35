/**
 * `taskflow definitions` in-process (runCli with captured output) against a
 * SQLite DATABASE_URL: validate (exit 1 with FILE:POINTER lines), publish
 * (YAML and JSON, numbered), diff of files and of stored versions.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { runCli } from "../../src/cli/run-cli.ts";
import { minimal } from "../support/definition-fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "taskflow-defs-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { DATABASE_URL: `sqlite:${join(dir, "defs.db")}` };

async function cli(...args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(["definitions", ...args], env, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
  });
  return { code, out, err };
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

test("validate: a valid YAML file exits 0 and says what was not checked", async () => {
  const f = file("ok.yaml", stringify(minimal()));
  const r = await cli("validate", f);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `${f}: valid (not checked: steps, workflows, definitions)\n`);
});

test("validate: an invalid file exits 1 with one FILE:POINTER line per finding", async () => {
  const d = minimal();
  d.states.review.next = "gone";
  delete d.name;
  const f = file("bad.json", JSON.stringify(d));
  const r = await cli("validate", f);
  assert.equal(r.code, 1);
  assert.deepEqual(r.err.trim().split("\n"), [
    `${f}:/name: is required`,
    `${f}:/states/end: is unreachable from start 'review'`,
    `${f}:/states/review/next: names no state: 'gone'`,
  ]);
});

test("validate: unreadable YAML and a missing file exit 1; bad usage exits 2", async () => {
  assert.equal((await cli("validate", file("broken.yml", "a: [1,"))).code, 1);
  const missing = await cli("validate", join(dir, "nope.json"));
  assert.equal(missing.code, 1);
  assert.match(missing.err, /ENOENT/);
  assert.equal((await cli("validate")).code, 2);
  assert.equal((await cli("frobnicate", "x")).code, 2);
});

test("publish numbers versions; diff compares files and stored versions", async () => {
  const one = file("one.yaml", stringify(minimal("cli-key")));
  const changed = minimal("cli-key");
  changed.states.review.title = "Review it";
  const two = file("two.json", JSON.stringify(changed));
  assert.deepEqual(await cli("publish", one, "--actor", "ops"), {
    code: 0,
    out: "published cli-key version 1\n",
    err: "",
  });
  assert.equal((await cli("publish", two)).out, "published cli-key version 2\n");
  // The same file again (a deploy that publishes every time) makes no version 3.
  assert.deepEqual(await cli("publish", two), {
    code: 0,
    out: "unchanged: cli-key version 2 is this definition already\n",
    err: "",
  });
  const files = await cli("diff", one, two);
  assert.equal(files.out, '~ /states/review/title: "Review" → "Review it"\n');
  const stored = await cli("diff", "cli-key", "1", "latest");
  assert.equal(stored.out, '~ /states/review/title: "Review" → "Review it"\n');
  assert.equal((await cli("diff", "cli-key", "1", "9")).code, 1);
});

test("publish of an invalid file writes nothing and exits 1", async () => {
  const d = minimal("cli-bad");
  d.states.review.title = "{{ (";
  const r = await cli("publish", file("bad-pub.json", JSON.stringify(d)));
  assert.equal(r.code, 1);
  assert.match(r.err, /:\/states\/review\/title: /);
  const list = await cli("diff", "cli-bad", "1", "1");
  assert.equal(list.code, 1);
  assert.match(list.err, /not found/);
});
