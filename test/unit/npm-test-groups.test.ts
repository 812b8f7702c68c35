/**
 * `npm test` (scripts/test.mjs) runs every group — lint, format check, typecheck of
 * the three projects, then the unit, db and browser sets through their own npm
 * scripts — so a check dropped from the list, or a set run some other way than
 * `npm run test:unit|db|browser` does, fails here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
// @ts-expect-error -- a plain ES module of the build scripts, without declarations
import { GROUPS } from "../../scripts/test-groups.mjs";

interface Group {
  name: string;
  mode: "idle" | "alone";
  steps: { cmd: string; args: string[] }[];
}

const root = fileURLToPath(new URL("../..", import.meta.url));
const groups = GROUPS as Group[];
const command = (g: Group) => g.steps.map((s) => s.args.join(" "));

test("npm test is scripts/test.mjs, and the set scripts run the sets", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  assert.equal(pkg.scripts.test, "node scripts/test.mjs");
  assert.equal(pkg.scripts.typecheck, "node scripts/test.mjs typecheck");
  assert.match(pkg.scripts["test:unit"]!, /test\/run-tests\.ts unit$/);
  assert.match(pkg.scripts["test:db"]!, /test\/run-tests\.ts db$/);
  assert.match(pkg.scripts["test:browser"]!, /scripts\/browser-tests\.mjs$/);
});

test("it runs lint, format check, the three typechecks and the three sets", () => {
  assert.deepEqual(groups.map((g) => g.name).sort(), [
    "browser",
    "db",
    "format",
    "lint",
    "typecheck",
    "unit",
  ]);
  const by = new Map(groups.map((g) => [g.name, g]));
  assert.deepEqual(command(by.get("lint")!), ["run --silent lint"]);
  assert.deepEqual(command(by.get("format")!), ["run --silent format:check"]);
  assert.deepEqual(command(by.get("unit")!), ["run --silent test:unit"]);
  assert.deepEqual(command(by.get("db")!), ["run --silent test:db"]);
  assert.deepEqual(command(by.get("browser")!), ["run --silent test:browser"]);
  const projects = by.get("typecheck")!.steps.map((s) => s.args.slice(1).join(" "));
  assert.deepEqual(projects, [
    "-p tsconfig.json --noEmit",
    "-p console-ui/tsconfig.json --noEmit",
    "-p examples/employee-termination-app/web/tsconfig.json --noEmit",
  ]);
});

test("the test sets run one after another at normal priority; only checks that time nothing run at idle priority", () => {
  // The sets' timing bounds assume no other test loads the machine (test/run-tests.ts);
  // an idle-priority process takes no CPU a test process wants (scripts/test.mjs).
  const alone = groups.filter((g) => g.mode === "alone").map((g) => g.name);
  assert.deepEqual(alone, ["unit", "db", "browser"]);
  const idle = groups.filter((g) => g.mode === "idle").map((g) => g.name);
  assert.deepEqual(idle.sort(), ["format", "lint", "typecheck"]);
});

test("scripts/test.mjs runs the idle groups under chrt --idle 0 (or nice -n 19)", () => {
  const source = readFileSync(join(root, "scripts", "test.mjs"), "utf8");
  assert.match(source, /"chrt", \["--idle", "0"/);
  assert.match(source, /"nice", \["-n", "19"/);
});
