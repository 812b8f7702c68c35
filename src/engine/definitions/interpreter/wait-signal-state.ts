/**
 * `waitSignal`: the runtime's signal wait, its payload the state's output.
 * A timeout goes to `onTimeout`; without one it fails the run.
 */
import type { WaitSignalState } from "../definition-language.ts";
import { durationMs } from "./definition-duration.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";

export async function runWaitSignal(
  run: InterpretedRun,
  state: WaitSignalState,
  name: string,
): Promise<Transition> {
  if (state.timeout === undefined) {
    run.output(await run.ctx.waitForSignal(state.signal), state.resultVar);
    return { next: state.next };
  }
  const timeout = durationMs(await run.valueOf(state.timeout));
  const outcome = await run.ctx.waitForSignalOutcome(state.signal, { timeout });
  if (outcome.timedOut) {
    if (state.onTimeout === undefined) {
      throw new Error(`state '${name}' timed out waiting for signal '${state.signal}'`);
    }
    run.output(null);
    return { next: state.onTimeout };
  }
  run.output(outcome.payload, state.resultVar);
  return { next: state.next };
}
