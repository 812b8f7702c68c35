/**
 * `call`: a code step registered by name (registerStep), run as a durable step
 * with the state's retry policy and timeout. The input is evaluated here, in
 * the workflow, and handed to the step; a step that fails for good takes
 * `onError` (its output: the error) or fails the run.
 */
import { StepFailedError } from "../../../domain/workflow-failure.ts";
import type { RetryPolicy, StepOptions } from "../../durable/types.ts";
import type { CallState, RetrySpec } from "../definition-language.ts";
import { durationMs } from "./definition-duration.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";
import { registeredStep } from "./step-registry.ts";

export class UnknownStepError extends Error {
  override name = "UnknownStep";
  constructor(step: string, state: string) {
    super(
      `state '${state}' calls the code step '${step}', which is not registered on this worker ` +
        `(registerStep("${step}", fn) in the module the worker loads)`,
    );
  }
}

export async function runCall(
  run: InterpretedRun,
  state: CallState,
  name: string,
): Promise<Transition> {
  const step = registeredStep(state.step);
  if (step === undefined) throw new UnknownStepError(state.step, name);
  const input = state.input === undefined ? run.vars : await run.evaluate(state.input);
  const { ctx } = run;
  const options: StepOptions = {
    ...step.options,
    retry: { ...step.options.retry, ...retryPolicy(state.retry) },
    ...(state.timeout === undefined ? {} : { timeout: durationMs(state.timeout) }),
  };
  try {
    const result = await ctx.step(
      state.step,
      (s) => step.fn(input, { ...s, runId: ctx.runId, tenantId: ctx.tenantId }),
      options,
    );
    run.output(result ?? null, state.resultVar);
    return { next: state.next };
  } catch (e) {
    if (!(e instanceof StepFailedError) || state.onError === undefined) throw e;
    run.output({ error: { name: e.failure.name, message: e.failure.message } });
    return { next: state.onError };
  }
}

function retryPolicy(spec: RetrySpec | undefined): RetryPolicy {
  if (spec === undefined) return {};
  const p: RetryPolicy = {};
  if (spec.maxAttempts !== undefined) p.maxAttempts = spec.maxAttempts;
  if (spec.backoff !== undefined) p.backoff = spec.backoff;
  if (spec.initialInterval !== undefined) p.initialInterval = durationMs(spec.initialInterval);
  if (spec.maxInterval !== undefined) p.maxInterval = durationMs(spec.maxInterval);
  return p;
}
