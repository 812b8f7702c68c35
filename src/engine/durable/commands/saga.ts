/**
 * Sagas: compensations registered by workflow code, run in reverse order when
 * the workflow fails or is cancelled (the executor calls `compensate`).
 */
import { toFailure, type WorkflowFailure } from "../../../domain/workflow-failure.ts";
import type { Runtime } from "../runtime.ts";
import type { Saga, StepFn, StepOptions } from "../types.ts";

export type Compensation =
  /** Workflow code that calls ctx itself. */
  | { name: null; fn: () => Promise<unknown> }
  /** Run as the step `name`. */
  | { name: string; fn: StepFn<unknown>; options: StepOptions | undefined };

export function sagaOf(list: Compensation[]): Saga {
  return {
    onFailure(
      a: string | (() => Promise<unknown>),
      b?: StepFn<unknown>,
      options?: StepOptions,
    ): void {
      if (typeof a === "string") list.push({ name: a, fn: b!, options });
      else list.push({ name: null, fn: a });
    },
  };
}

type RunStep = (name: string, fn: StepFn<unknown>, options?: StepOptions) => Promise<unknown>;

/**
 * Runs the compensations, last registered first; returns their failures. A
 * halt stops them (thrown); cancellation does not reach them.
 */
export async function compensate(
  rt: Runtime,
  list: readonly Compensation[],
  step: RunStep,
): Promise<WorkflowFailure[]> {
  rt.cancellation.compensating = true;
  rt.scheduler.quiesce = true;
  try {
    const failures: WorkflowFailure[] = [];
    for (const c of [...list].reverse()) {
      try {
        const run = c.name === null ? c.fn() : step(c.name, c.fn, c.options);
        await Promise.race([run, rt.scheduler.suspended]);
      } catch (e) {
        if (rt.halts.current !== undefined) throw rt.halts.current;
        failures.push(toFailure(e));
      }
    }
    return failures;
  } finally {
    rt.scheduler.quiesce = false;
  }
}
