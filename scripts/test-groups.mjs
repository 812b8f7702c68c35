// The groups of `npm test` (scripts/test.mjs runs them) and the commands of each; a
// unit test (test/unit/npm-test-groups.test.ts) holds that every one is here.
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";

/** @typedef {{ cmd: string, args: string[] }} Step */
/** @typedef {{ name: string, pooled: boolean, steps: Step[] }} Group */

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
 * Each group is one or more steps; a pooled group's steps may run side by side. The
 * order is longest first (as measured on this machine), so the pool ends soon after its
 * longest step.
 * @type {Group[]}
 */
export const GROUPS = [
  { name: "lint", pooled: true, steps: [npm("lint")] },
  {
    name: "typecheck",
    pooled: true,
    steps: [
      tsc("tsconfig.json"),
      tsc("console-ui/tsconfig.json"),
      tsc("examples/employee-termination-app/web/tsconfig.json"),
    ],
  },
  { name: "unit", pooled: true, steps: [npm("test:unit")] },
  { name: "format", pooled: true, steps: [npm("format:check")] },
  { name: "db", pooled: false, steps: [npm("test:db")] },
  { name: "browser", pooled: false, steps: [npm("test:browser")] },
];
