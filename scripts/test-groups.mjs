// The groups of `npm test` (scripts/test.mjs runs them) and the commands of each; a
// unit test (test/unit/npm-test-groups.test.ts) holds that every one is here.
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";

/** @typedef {{ cmd: string, args: string[] }} Step */
/**
 * `idle`: a CPU-bound check that times nothing (lint, format, typecheck); it runs at the
 * machine's idle priority, side by side with the test sets, on the cycles they leave.
 * `alone`: a test set, run one after another at normal priority (scripts/test.mjs).
 * @typedef {{ name: string, mode: "idle" | "alone", steps: Step[] }} Group
 */

/** @type {(pkg: string, path: string) => string} */
const bin = (pkg, path) =>
  join(createRequire(import.meta.url).resolve(`${pkg}/package.json`), "..", path);
/** @type {(script: string) => Step} */
const npm = (script) => ({ cmd: "npm", args: ["run", "--silent", script] });
/** @type {(file: string, ...args: string[]) => Step} */
const node = (file, ...args) => ({ cmd: process.execPath, args: [file, ...args] });
/** @type {(project: string) => Step} */
const tsc = (project) => node(bin("typescript", "bin/tsc"), "-p", project, "--noEmit");

/**
 * Each group is one or more steps; an idle group's steps may run side by side. The
 * order is longest first (as measured on this machine), so the idle pool ends soon after
 * its longest step. The unit set runs first, alone: its tests time things (timers,
 * backoffs) and would wait behind every other process at idle priority.
 * @type {Group[]}
 */
export const GROUPS = [
  { name: "lint", mode: "idle", steps: [npm("lint")] },
  {
    name: "typecheck",
    mode: "idle",
    steps: [
      tsc("tsconfig.json"),
      tsc("console-ui/tsconfig.json"),
      tsc("examples/employee-termination-app/web/tsconfig.json"),
    ],
  },
  { name: "format", mode: "idle", steps: [npm("format:check")] },
  { name: "unit", mode: "alone", steps: [npm("test:unit")] },
  { name: "db", mode: "alone", steps: [npm("test:db")] },
  { name: "browser", mode: "alone", steps: [npm("test:browser")] },
];
