/**
 * `subProcess`: a child run via ctx.child — of the interpreter for another
 * definition (its version pinned: the given one, or the latest published one
 * resolved once, in a step, so a replay starts the same), or of a code
 * workflow by name. The output is the child's vars, or the workflow's output.
 */
import { NonRetryableError } from "../../../domain/workflow-failure.ts";
import type { Vars } from "../../../domain/vars.ts";
import type { SubProcessState } from "../definition-language.ts";
import { isReservedWorkflow } from "../../durable/reserved-workflows.ts";
import { checkChildVars } from "./child-vars-check.ts";
import { DEFINITION_RUN, isRunOutput, type DefinitionRunInput } from "./run-input.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";

export async function runSubProcess(
  run: InterpretedRun,
  state: SubProcessState,
): Promise<Transition> {
  const input = state.input === undefined ? run.vars : await run.evaluate(state.input);
  const { ctx } = run;
  if ("workflow" in state) {
    // The engine's own workflows are no definition's to start: a child of
    // taskflow.definition-run would skip the version and vars checks of a start.
    if (isReservedWorkflow(state.workflow)) {
      throw new NonRetryableError(`subProcess names no known workflow: '${state.workflow}'`);
    }
    run.output((await ctx.child(state.workflow, input)) ?? null, state.resultVar);
    return { next: state.next };
  }
  const key = state.definition;
  const version =
    state.version ?? (await ctx.step(`taskflow.resolve:${key}`, () => latest(run, key)));
  const vars = (
    typeof input === "object" && input !== null && !Array.isArray(input) ? input : { input }
  ) as Vars;
  await checkChildVars(run, key, version, vars);
  const child: DefinitionRunInput = { key, version, vars };
  // A process of its own, listed under the child definition's key (its tasks carry that key).
  const out = await ctx.child<DefinitionRunInput, unknown>(DEFINITION_RUN, child, {
    processKey: key,
  });
  run.output(isRunOutput(out) ? out.vars : out, state.resultVar);
  return { next: state.next };
}

async function latest(run: InterpretedRun, key: string): Promise<number> {
  const v = await run.deps.definitions.store.latestPublished(run.ctx.tenantId, key);
  if (v === undefined) throw new NonRetryableError(`definition '${key}' has no published version`);
  return v.version;
}
