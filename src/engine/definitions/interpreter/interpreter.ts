/**
 * The interpreter: one code workflow of the durable runtime that runs a
 * published definition. It loops `state → execute → next`; every side effect
 * and every wait is a ctx command, and everything between them (expressions,
 * the choice of the next state) is computed from the recorded history and
 * the pinned version's immutable body, so a replay makes the same moves.
 */
import { engineWorkflow } from "../../durable/reserved-workflows.ts";
import type { WorkflowContext, WorkflowDefinition } from "../../durable/types.ts";
import type { State } from "../definition-language.ts";
import { runCall } from "./call-state.ts";
import { runChoice } from "./choice-state.ts";
import type { InterpreterDeps } from "./interpreter-deps.ts";
import { runParallel } from "./parallel-state.ts";
import { runRespond } from "./respond-state.ts";
import { InterpretedRun, type Transition } from "./run-context.ts";
import { DEFINITION_RUN, type DefinitionRunInput, type DefinitionRunOutput } from "./run-input.ts";
import { runSubProcess } from "./sub-process-state.ts";
import { runTimer } from "./timer-state.ts";
import { runUserTask } from "./user-task-state.ts";
import { runWaitSignal } from "./wait-signal-state.ts";

/** States per generation before continueAsNew keeps a looping process's history short. */
const STATES_PER_GENERATION = 200;

export function definitionRunWorkflow(
  deps: InterpreterDeps,
): WorkflowDefinition<DefinitionRunInput, DefinitionRunOutput> {
  return engineWorkflow(DEFINITION_RUN, (ctx, input: DefinitionRunInput) =>
    interpret(ctx, input, deps),
  );
}

async function interpret(
  ctx: WorkflowContext,
  input: DefinitionRunInput,
  deps: InterpreterDeps,
): Promise<DefinitionRunOutput> {
  const def = await deps.definitions.load(ctx.tenantId, input.key, input.version);
  const branch = input.branch ?? [];
  const scope = def.scope(branch);
  const run = new InterpretedRun(ctx, def, deps, branch, input.vars ?? {}, input.last ?? null);
  let name = input.at ?? scope.start;
  for (let executed = 0; ; executed++) {
    if (executed === STATES_PER_GENERATION) {
      return ctx.continueAsNew({ ...input, vars: run.vars, at: name, last: run.last });
    }
    const state = scope.states[name];
    if (state === undefined)
      throw new Error(`definition '${def.key}' v${def.version} has no state '${name}'`);
    const t = await execute(run, state, name);
    if ("next" in t) name = t.next;
    else if ("terminate" in t) return { vars: run.vars, terminated: t.terminate };
    else return { vars: run.vars };
  }
}

function execute(run: InterpretedRun, state: State, name: string): Promise<Transition> {
  switch (state.type) {
    case "userTask":
      return runUserTask(run, state, name);
    case "choice":
      return runChoice(run, state);
    case "parallel":
      return runParallel(run, state, name);
    case "timer":
      return runTimer(run, state);
    case "waitSignal":
      return runWaitSignal(run, state, name);
    case "call":
      return runCall(run, state, name);
    case "subProcess":
      return runSubProcess(run, state);
    case "respond":
      return runRespond(run, state);
    case "end":
      return Promise.resolve({ end: true });
    case "terminate":
      return Promise.resolve({ terminate: state.reason ?? "terminated" });
  }
}
