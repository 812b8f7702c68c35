/**
 * The workflows the chaos nodes run (`taskflow serve --workflows` loads this
 * module). Imports the package by name, as an application would.
 *
 * Every step body is a side effect: it appends "start|end <idempotencyKey>
 * <node> <ms>" to $TF_CHAOS_LOG (one append-only file per node process), so
 * the suite can tell afterwards whether a step whose completion was recorded
 * ran again. appendFileSync reaches the page cache before the step returns, so
 * a kill -9 right after loses nothing that was logged.
 */
import { appendFileSync } from "node:fs";
import { workflow } from "taskflow";
import { approverOf, type MixInput } from "./mix-expectations.ts";

const NODE = process.env.TF_CHAOS_NODE ?? "?";

function note(what: "start" | "end", key: string): void {
  const file = process.env.TF_CHAOS_LOG;
  if (file) appendFileSync(file, `${what} ${key} ${NODE} ${Date.now()}\n`);
}

/**
 * 40–160 ms per step: long enough that a fault (SIGSTOP, kill -9, a cut) lands
 * inside a step now and then, short enough that a run takes well under a second.
 */
async function sideEffect(key: string): Promise<void> {
  note("start", key);
  await new Promise((r) => setTimeout(r, 40 + Math.floor(Math.random() * 120)));
  note("end", key);
}

/** Steps, a timer, a signal and a human task: every kind of durable wait in one run. */
export const chaosMix = workflow("chaos-mix", async (ctx, input: MixInput) => {
  const step = (i: number) =>
    ctx.step(`s${i}`, async ({ idempotencyKey }) => {
      await sideEffect(idempotencyKey);
      return { value: input.n + i, by: NODE };
    });
  const a = await step(0);
  await ctx.sleep("200ms");
  const b = await step(1);
  const signal = await ctx.waitForSignal<{ add: number }>("go");
  const task = await ctx.humanTask("approve", {
    assignee: { kind: "user", id: approverOf(input.n, input.tag) },
  });
  const c = await step(2);
  const bonus = Number(task.vars?.bonus ?? Number.NaN);
  return { n: input.n, total: a.value + b.value + c.value + (signal?.add ?? 0) + bonus };
});

/** One step: the recovery probe's "first completed run after the fault". */
export const chaosProbe = workflow("chaos-probe", async (ctx, input: { at: number }) => {
  await ctx.step("probe", async ({ idempotencyKey }) => {
    await sideEffect(idempotencyKey);
  });
  return input.at;
});
