/**
 * `parallel`: each branch is a child run of the interpreter over the branch's
 * scope, with a copy of the vars, in the process's root instance (its tasks
 * are the process's; no process of its own in any list). The join (all, any, atLeast N) decides when
 * the state is done; branches still running then are cancelled, in a step
 * (cancel requests are side effects). A branch that ends in `terminate` ends
 * the whole process: the others are cancelled and the parent terminates too.
 * The output is the array of the branches' vars (null for a cancelled one).
 */
import { NonRetryableError } from "../../../domain/workflow-failure.ts";
import { isTerminal } from "../../../domain/run.ts";
import type { CompletionPolicy, ParallelState } from "../definition-language.ts";
import type { RunStore } from "../../durable/run-store-port.ts";
import {
  DEFINITION_RUN,
  isRunOutput,
  type DefinitionRunInput,
  type DefinitionRunOutput,
} from "./run-input.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";

export const CANCEL_BRANCHES_STEP = "taskflow.cancel-branches";

export async function runParallel(
  run: InterpretedRun,
  state: ParallelState,
  name: string,
): Promise<Transition> {
  const { ctx } = run;
  const n = state.branches.length;
  const need = needed(state.join, n);
  const outputs: (DefinitionRunOutput | null)[] = state.branches.map(() => null);
  const joining = new Promise<{ terminated?: string }>((resolve, reject) => {
    let done = 0;
    let failed = 0;
    let settled = false;
    state.branches.forEach((_, i) => {
      const input: DefinitionRunInput = {
        key: run.def.key,
        version: run.def.version,
        vars: run.vars,
        branch: [...run.branch, name, i],
      };
      // In the process's own root: the branch's tasks are the process's tasks.
      ctx.child<DefinitionRunInput, unknown>(DEFINITION_RUN, input, { inParentProcess: true }).then(
        (out) => {
          if (settled) return;
          outputs[i] = isRunOutput(out) ? out : { vars: {} };
          done++;
          const terminated = outputs[i].terminated;
          if (terminated !== undefined) {
            settled = true;
            resolve({ terminated });
          } else if (done >= need) {
            settled = true;
            resolve({});
          }
        },
        (e: unknown) => {
          if (settled) return;
          failed++;
          if (n - failed < need) {
            settled = true;
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        },
      );
    });
  });
  const cancelRest = () =>
    ctx.step(CANCEL_BRANCHES_STEP, () => cancelChildren(run.deps.runs, ctx.tenantId, ctx.runId));
  let joined: { terminated?: string };
  try {
    joined = await joining;
  } catch (e) {
    // The join can no longer be met: the branches still running go too.
    await cancelRest();
    throw e;
  }
  if (done(outputs) < n) await cancelRest();
  if (joined.terminated !== undefined) return { terminate: joined.terminated };
  run.output(
    outputs.map((o) => o?.vars ?? null),
    state.resultVar,
  );
  return { next: state.next };
}

function done(outputs: readonly (DefinitionRunOutput | null)[]): number {
  return outputs.filter((o) => o !== null).length;
}

function needed(join: CompletionPolicy | undefined, n: number): number {
  if (join === undefined || join === "all") return n;
  if (join === "any") return Math.min(1, n);
  return Math.min(join.atLeast, n);
}

/**
 * Requests the cancellation of this run's children that are still running:
 * while a parallel state joins, the interpreter has no other child open.
 */
async function cancelChildren(runs: RunStore, tenantId: string, runId: string): Promise<number> {
  const run = await runs.getRun(tenantId, runId);
  if (run === undefined) throw new NonRetryableError(`run '${runId}' is gone`);
  const history = await runs.loadHistory(tenantId, runId, run.firstSeq);
  let cancelled = 0;
  for (const ev of history) {
    if (ev.type !== "child_started") continue;
    const childId = ev.data.childRunId;
    const child = await runs.getRun(tenantId, childId);
    if (child === undefined || isTerminal(child.status)) continue;
    await runs.requestCancel(tenantId, childId, Date.now());
    cancelled++;
  }
  return cancelled;
}
