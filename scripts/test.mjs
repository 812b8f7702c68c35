#!/usr/bin/env node
// `npm test` (and `node scripts/test.mjs [group...]` for some of them): every group of
// checks, then one table of each group's result and time, so a CI log shows where its
// minutes went. Every group runs even when an earlier one failed — one run shows every
// failure, as the db groups do — and the exit code is 1 when any failed.
//
// Two cores, and two kinds of group (scripts/test-groups.mjs):
// - the test sets (unit, db, browser) run one after another at normal priority,
//   streamed. The db set has its own parallel, paired and exclusive groups
//   (test/run-tests.ts), whose timing bounds assume no other test loads the machine;
//   the browser suite runs two Chromiums with their servers.
// - the checks that time nothing (lint, format, the three typecheck projects: ~220 s
//   of CPU) run from the start beside them, two at a time, at the scheduler's idle
//   priority (SCHED_IDLE, `chrt --idle 0`; `nice -n 19` where chrt is missing). An
//   idle-priority process runs only on a core no other process wants, and a waking
//   test process takes the core from it at once, so the checks use the cycles that the
//   test sets leave while they wait on databases, leases and child processes (the db
//   set's paired and exclusive groups leave most of both cores idle) and take none from
//   them. Their output is held and printed whole when each ends.
import { spawn, spawnSync } from "node:child_process";
import { Buffer } from "node:buffer";
import console from "node:console";
import process from "node:process";
import { URL } from "node:url";
import { GROUPS } from "./test-groups.mjs";

/** @typedef {import("./test-groups.mjs").Group} Group */
/** @typedef {import("./test-groups.mjs").Step} Step */

const root = new URL("..", import.meta.url).pathname;
const SLOTS = 2;

/** @type {Set<import("node:child_process").ChildProcess>} */
const children = new Set();
/** @param {NodeJS.Signals} signal */
const stop = (signal) => {
  for (const child of children) child.kill(signal);
  process.exit(1);
};
process.once("SIGINT", () => stop("SIGINT"));
process.once("SIGTERM", () => stop("SIGTERM"));

/**
 * `step` at idle CPU priority: chrt's SCHED_IDLE (util-linux, on every Debian), else the
 * lowest nice value, else as it is (a machine without either still runs every check).
 * @param {Step} step
 * @returns {Step}
 */
function atIdlePriority(step) {
  const has = (/** @type {string} */ cmd, /** @type {string[]} */ args) =>
    spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
  if (has("chrt", ["--idle", "0", "true"]))
    return { cmd: "chrt", args: ["--idle", "0", step.cmd, ...step.args] };
  if (has("nice", ["-n", "19", "true"]))
    return { cmd: "nice", args: ["-n", "19", step.cmd, ...step.args] };
  return step;
}

/**
 * Runs one step; resolves with its exit code (1 when killed). Held output goes to `held`.
 * @param {Step} step
 * @param {Buffer[]} [held]
 * @returns {Promise<number>}
 */
function run({ cmd, args }, held) {
  return new Promise((resolve) => {
    /** @type {import("node:child_process").StdioOptions} */
    const stdio = held === undefined ? "inherit" : ["ignore", "pipe", "pipe"];
    const child = spawn(cmd, args, { cwd: root, stdio });
    children.add(child);
    if (held !== undefined) {
      child.stdout?.on("data", (/** @type {Buffer} */ c) => held.push(c));
      child.stderr?.on("data", (/** @type {Buffer} */ c) => held.push(c));
    }
    child.on("close", (code) => {
      children.delete(child);
      resolve(code ?? 1);
    });
  });
}

/** @type {Map<string, { ok: boolean, ms: number }>} */
const results = new Map();
/** @type {(group: Group, ok: boolean, ms: number) => void} */
const record = (group, ok, ms) => {
  const prev = results.get(group.name);
  results.set(group.name, { ok: ok && (prev?.ok ?? true), ms });
};
/** @type {Map<string, number>} */
const began = new Map();
/** @param {number} ms */
const seconds = (ms) => (ms / 1000).toFixed(1);

/**
 * The idle groups' steps, SLOTS at a time; a group's time is its first start to last end.
 * @param {Group[]} groups
 * @param {boolean} idle run them at idle priority (beside the test sets)
 */
async function pool(groups, idle) {
  const queue = groups.flatMap((group) => group.steps.map((step) => ({ group, step })));
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      const { group, step } = item;
      if (!began.has(group.name)) began.set(group.name, Date.now());
      /** @type {Buffer[]} */
      const held = [];
      const code = await run(idle ? atIdlePriority(step) : step, held);
      const label = `${group.name}: ${[step.cmd, ...step.args].join(" ").replace(root, "")}`;
      process.stdout.write(`\n=== ${label} (exit ${code})\n${Buffer.concat(held).toString()}`);
      record(group, code === 0, Date.now() - (began.get(group.name) ?? 0));
    }
  };
  await Promise.all(Array.from({ length: SLOTS }, worker));
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !GROUPS.some((g) => g.name === w));
if (unknown.length > 0) {
  console.error(
    `test: no group ${unknown.join(", ")}; groups: ${GROUPS.map((g) => g.name).join(", ")}`,
  );
  process.exit(2);
}
const chosen = GROUPS.filter((g) => wanted.length === 0 || wanted.includes(g.name));
const started = Date.now();
const sets = chosen.filter((g) => g.mode === "alone");
// Alone (`npm run typecheck`, `node scripts/test.mjs lint`), the checks take the CPU.
const checks = pool(
  chosen.filter((g) => g.mode === "idle"),
  sets.length > 0,
);
for (const group of sets) {
  console.log(`\n=== ${group.name}`);
  const at = Date.now();
  let ok = true;
  for (const step of group.steps) ok = (await run(step)) === 0 && ok;
  record(group, ok, Date.now() - at);
}
await checks;

// The checks overlap the sets, so the times add up to more than the wall time.
const rows = chosen.map((g) => [
  g.mode === "idle" ? `${g.name} *` : g.name,
  results.get(g.name)?.ok ? "ok" : "FAILED",
  seconds(results.get(g.name)?.ms ?? 0),
]);
rows.push([
  "total (wall)",
  [...results.values()].every((r) => r.ok) ? "ok" : "FAILED",
  seconds(Date.now() - started),
]);
console.log("\ngroup         result      s");
for (const [name, result, s] of rows)
  console.log(`${name.padEnd(13)} ${result.padEnd(7)} ${s.padStart(6)}`);
if (chosen.some((g) => g.mode === "idle"))
  console.log(
    `* ran side by side, ${SLOTS} at a time` +
      (sets.length > 0 ? ", at idle priority beside the test sets" : ""),
  );
process.exit([...results.values()].every((r) => r.ok) ? 0 : 1);
