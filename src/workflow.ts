/**
 * The public entry point for writing durable workflows:
 *
 *   import { workflow } from "taskflow";
 *   export const order = workflow("order", async (ctx, input: Order) => { … });
 */
import { taskflowError } from "./domain/errors.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "./domain/limits.ts";
import {
  WORKFLOW_MARK,
  type WorkflowDefinition,
  type WorkflowFn,
  type WorkflowOptions,
} from "./engine/durable/types.ts";
import {
  isReservedWorkflow,
  RESERVED_WORKFLOW_PREFIX,
} from "./engine/durable/reserved-workflows.ts";

export function workflow<I = unknown, O = unknown>(
  name: string,
  fn: WorkflowFn<I, O>,
  options: WorkflowOptions = {},
): WorkflowDefinition<I, O> {
  // The name is also the definition key of the runs' root instances, so it follows the id rules.
  if (
    typeof name !== "string" ||
    name.length > MAX_ID_LENGTH ||
    !new RegExp(ID_PATTERN).test(name)
  ) {
    throw taskflowError("InvalidRegistration", {
      detail: `workflow name '${String(name)}' must be 1–${MAX_ID_LENGTH} letters, digits or . _ - @ :`,
    });
  }
  if (isReservedWorkflow(name)) {
    throw taskflowError("InvalidRegistration", {
      detail: `workflow name '${name}': names starting with '${RESERVED_WORKFLOW_PREFIX}' are reserved for the engine`,
    });
  }
  if (typeof fn !== "function")
    throw taskflowError("InvalidRegistration", { detail: `workflow '${name}' needs a function` });
  return Object.freeze({ kind: WORKFLOW_MARK, name, fn, options });
}

export type {
  ChildOptions,
  HumanTaskOptions,
  HumanTaskResult,
  RetryPolicy,
  Saga,
  StepFn,
  StepInput,
  StepOptions,
  TaskCompletion,
  TaskPolicy,
  WorkflowContext,
  WorkflowDefinition,
  WorkflowFn,
  WorkflowOptions,
} from "./engine/durable/types.ts";
export {
  CancelledFailure,
  NonDeterminismError,
  NonRetryableError,
  StepFailedError,
  StepTimeoutError,
  ChildFailedError,
  type WorkflowFailure,
} from "./domain/workflow-failure.ts";
