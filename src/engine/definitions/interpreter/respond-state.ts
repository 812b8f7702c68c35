/**
 * `respond`: the answer to the request that started the run, recorded as a
 * step of its own (so another node finds it in the history), then handed to a
 * waiter on this node at once.
 */
import type { RespondState } from "../definition-language.ts";
import type { DefinitionResponse } from "../definition-runs.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";

/** The name of the step that records a respond state's answer. */
export const RESPOND_STEP = "taskflow.respond";

export async function runRespond(run: InterpretedRun, state: RespondState): Promise<Transition> {
  const { ctx } = run;
  const body =
    state.body === undefined ? null : await run.evaluate(state.body, { runId: ctx.runId });
  const answer: DefinitionResponse = { status: state.status, body };
  const recorded = await ctx.step(RESPOND_STEP, () => answer);
  run.deps.responses.deliver(ctx.tenantId, ctx.runId, recorded);
  return state.next === undefined ? { end: true } : { next: state.next };
}
