/**
 * A serving process logs a stray rejected promise and keeps running (Node's
 * default would end it). In a child process, so the test runner's own
 * rejection tracking is not involved.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

const script = `
const { logUnhandledRejections } = await import("./src/cli/unhandled-rejections.ts");
logUnhandledRejections({ error: (o, m) => console.log("logged:", m, o.err.message) });
void Promise.reject(new Error("stray"));
setTimeout(() => console.log("still alive"), 100);
`;

test("an unhandled rejection is logged and the process keeps running", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    timeout: 20_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /logged: unhandled promise rejection \(a bug\); the process keeps running stray/,
  );
  assert.match(r.stdout, /still alive/);
});
