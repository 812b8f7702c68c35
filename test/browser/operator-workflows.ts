/**
 * The durable workflows the operator pages' browser tests run (`serve --workflows` this
 * file). Retries wait 10 s before jitter, 5–10 s after: at 5 s or more a failed attempt
 * is recorded in the history (step_retry) and the run waits durably. Shorter backoffs
 * are slept in memory; the step's outcome lists those attempts (`shaky`).
 */
import { workflow } from "../../src/workflow.ts";

const DURABLE_RETRY = { maxAttempts: 2, initialInterval: "10s" } as const;

/** Fails its first attempt, then succeeds. */
export const flaky = workflow("flaky", (ctx) =>
  ctx.step(
    "charge",
    ({ attempt }) => {
      if (attempt === 1) throw new Error("card network timeout");
      return { charged: true, attempt };
    },
    { retry: DURABLE_RETRY },
  ),
);

/** Fails twice, retried in memory each time (backoffs of 50–100 ms), then succeeds. */
export const shaky = workflow("shaky", (ctx) =>
  ctx.step(
    "reserve",
    ({ attempt }) => {
      if (attempt < 3) throw new Error(`seat map busy (${attempt})`);
      return { seat: "12A" };
    },
    { retry: { maxAttempts: 3, initialInterval: "100ms" } },
  ),
);

/** Fails every attempt: the run fails for good after its retry. */
export const doomed = workflow("doomed", (ctx) =>
  ctx.step(
    "ship",
    () => {
      throw new Error("warehouse closed");
    },
    { retry: DURABLE_RETRY },
  ),
);

/** Waits for a signal that may never come: a run to cancel. */
export const hold = workflow("hold", async (ctx) => ({
  approval: await ctx.waitForSignal("approval"),
}));

/** A quick child run. */
export const leaf = workflow("leaf", (ctx, n: number | null) =>
  ctx.step("work", () => (n ?? 0) + 1),
);

/** Every kind of wait: a durable sleep, a human task for bob, a signal, a child run. */
export const showcase = workflow("showcase", async (ctx) => {
  await ctx.step("prepare", () => "ready");
  await ctx.sleep("1500ms");
  const review = await ctx.humanTask("review", { assignee: { kind: "user", id: "bob" } });
  const go = await ctx.waitForSignal<{ go: boolean }>("go");
  const child = await ctx.child(leaf, 41);
  return { reviewedBy: review.completedBy, go, child };
});
