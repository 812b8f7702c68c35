/** `choice`: the first `when` that is truthy picks `next`; no command, pure evaluation. */
import type { ChoiceState } from "../definition-language.ts";
import { truthy, type InterpretedRun, type Transition } from "./run-context.ts";

export async function runChoice(run: InterpretedRun, state: ChoiceState): Promise<Transition> {
  for (const c of state.choices) {
    if (truthy(await run.evaluate(c.when))) return { next: c.next };
  }
  return { next: state.otherwise };
}
