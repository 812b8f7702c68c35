/**
 * Workflows for the process tests, loaded by `taskflow worker --workflows`.
 * Imports the package by name (self-reference), as an application would.
 * Each step appends "start|end <idempotencyKey> <ms> <pid>" to $TF_STEP_LOG, so a
 * test can count how often each step ran across processes and kill -9s, when, and
 * in which process (to tell which steps a kill caught in flight).
 */
import { appendFileSync } from "node:fs";
import { workflow } from "taskflow";

const log = (what: "start" | "end", key: string) => {
  const file = process.env.TF_STEP_LOG;
  if (file) appendFileSync(file, `${what} ${key} ${Date.now()} ${process.pid}\n`);
};

export const fiveSteps = workflow("five-steps", async (ctx, input: { n: number }) => {
  let total = 0;
  for (let i = 0; i < 5; i++) {
    total += await ctx.step(`step-${i}`, async ({ idempotencyKey }) => {
      log("start", idempotencyKey);
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 60)));
      log("end", idempotencyKey);
      return input.n + i;
    });
  }
  return total;
});

export const napper = workflow("napper", async (ctx) => {
  await ctx.sleep("2s");
  return "awake";
});
