#!/usr/bin/env node
// `npm test` (and `node scripts/test.mjs [group...]` for some of them): every group of
// checks, then one table of each group's result and time, so a CI log shows where its
// minutes went. Every group runs even when an earlier one failed — one run shows every
// failure, as the db groups do — and the exit code is 1 when any failed.
//
// Two cores: the CPU-bound groups (lint, format, the three typecheck projects, the unit
// set) share a pool of two slots, longest first, each with its output held and printed
// whole when it ends so that two groups' lines never interleave. The db set and the
// browser suite then run alone, streamed: the db set has its own parallel, paired and
// exclusive groups (test/run-tests.ts), whose timing bounds assume no other load, and
// the browser suite runs two Chromiums with their servers, which fill both cores.
import { spawn } from "node:child_process";
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
 * The pooled groups' steps, SLOTS at a time; a group's time is its first start to last end.
 * @param {Group[]} groups
 */
async function pool(groups) {
  const queue = groups.flatMap((group) => group.steps.map((step) => ({ group, step })));
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      const { group, step } = item;
      if (!began.has(group.name)) began.set(group.name, Date.now());
      /** @type {Buffer[]} */
      const held = [];
      const code = await run(step, held);
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
await pool(chosen.filter((g) => g.pooled));
for (const group of chosen.filter((g) => !g.pooled)) {
  console.log(`\n=== ${group.name}`);
  const at = Date.now();
  let ok = true;
  for (const step of group.steps) ok = (await run(step)) === 0 && ok;
  record(group, ok, Date.now() - at);
}

// Pooled groups overlap, so their times add up to more than the wall time they took.
const rows = chosen.map((g) => [
  g.pooled ? `${g.name} *` : g.name,
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
if (chosen.some((g) => g.pooled)) console.log(`* ran side by side, ${SLOTS} at a time`);
process.exit([...results.values()].every((r) => r.ok) ? 0 : 1);
