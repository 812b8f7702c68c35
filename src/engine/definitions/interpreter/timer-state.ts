/** `timer`: a durable sleep for `duration`, or until the instant `until` evaluates to. */
import type { TimerState } from "../definition-language.ts";
import { durationMs } from "./definition-duration.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";

export async function runTimer(run: InterpretedRun, state: TimerState): Promise<Transition> {
  if (state.until !== undefined) {
    await run.ctx.sleepUntil(instantMs(await run.evaluate(state.until)));
  } else {
    await run.ctx.sleep(durationMs(await run.valueOf(state.duration ?? 0)));
  }
  run.output(null);
  return { next: state.next };
}

/** An ISO 8601 instant or epoch milliseconds. */
export function instantMs(v: unknown): number {
  const t = typeof v === "number" ? v : typeof v === "string" ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(t))
    throw new Error(`timer 'until' gave ${JSON.stringify(v)}, not an instant`);
  return t;
}
