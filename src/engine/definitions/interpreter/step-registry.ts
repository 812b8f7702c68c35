/**
 * Code steps that `call` states name: registered by name in the process that
 * runs the interpreter (a `--workflows` module calls registerStep when it is
 * imported), looked up when a run reaches the state. Process-wide because the
 * module that registers them is loaded once per process, like workflow().
 */
import { taskflowError } from "../../../domain/errors.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../../../domain/limits.ts";
import type { StepInput, StepOptions } from "../../durable/types.ts";

/** What a step function receives besides its input: the runtime's step input, plus whose run it is. */
export interface CodeStepContext extends StepInput {
  runId: string;
  tenantId: string;
}

export type CodeStepFn = (input: unknown, ctx: CodeStepContext) => unknown;

export interface RegisteredStep {
  name: string;
  fn: CodeStepFn;
  /** Defaults under the state's own `retry` and `timeout`. */
  options: StepOptions;
}

// One registry per process, also when two copies of this module are loaded (a
// workflows module importing the package while the CLI runs from source).
const REGISTRY = Symbol.for("taskflow.code-steps");
const shared = globalThis as { [REGISTRY]?: Map<string, RegisteredStep> };
const steps: Map<string, RegisteredStep> = (shared[REGISTRY] ??= new Map<string, RegisteredStep>());

/**
 * Registers the code step `name` for `call` states. Registering the same
 * function twice is harmless (a module imported twice); another function under
 * a taken name is refused.
 */
export function registerStep(name: string, fn: CodeStepFn, options: StepOptions = {}): void {
  if (
    typeof name !== "string" ||
    name.length > MAX_ID_LENGTH ||
    !new RegExp(ID_PATTERN).test(name)
  ) {
    throw taskflowError("InvalidRegistration", {
      detail: `step name '${String(name)}' must be 1–${MAX_ID_LENGTH} letters, digits or . _ - @ :`,
    });
  }
  if (typeof fn !== "function")
    throw taskflowError("InvalidRegistration", { detail: `step '${name}' needs a function` });
  const known = steps.get(name);
  if (known !== undefined && known.fn !== fn)
    throw taskflowError("InvalidRegistration", { detail: `step '${name}' is registered twice` });
  steps.set(name, { name, fn, options });
}

export function registeredStep(name: string): RegisteredStep | undefined {
  return steps.get(name);
}

export function registeredStepNames(): string[] {
  return [...steps.keys()];
}

/** For tests: forgets a step. */
export function unregisterStep(name: string): void {
  steps.delete(name);
}
