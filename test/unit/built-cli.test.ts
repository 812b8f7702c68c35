/**
 * The stale-build guard of test/support/built-cli.ts on a throwaway project
 * tree: tests that start dist/cli/main.js must never run code older than src/.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { builtCliIsStale } from "../support/built-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "taskflow-built-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, secondsAgo: number) {
  const full = join(dir, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, "");
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(full, at, at);
}

void test("missing dist/: stale; dist/ newer than every source: fresh; one newer source: stale", () => {
  file("src/deep/a.ts", 100);
  assert.equal(builtCliIsStale(dir), true, "no dist/cli/main.js");
  file("dist/cli/main.js", 50);
  assert.equal(builtCliIsStale(dir), false, "built after the last edit");
  file("src/deep/nested/b.ts", 10);
  assert.equal(builtCliIsStale(dir), true, "a source edited after the build, two levels down");
});
