/**
 * The engine's own workflows (the interpreter's `taskflow.definition-run`)
 * live in a namespace no caller may use: a start of one through the public
 * routes or the library would skip what the engine's own start checks (a
 * definition's vars schema, a retracted version), so the public start answers
 * for every name in it exactly as for a workflow nobody serves, and
 * `workflow()` refuses to define one. Compared without case: MariaDB's
 * collation finds `TaskFlow.definition-run` served when the engine serves
 * `taskflow.definition-run`.
 */
import { WORKFLOW_MARK, type WorkflowDefinition, type WorkflowFn } from "./types.ts";

export const RESERVED_WORKFLOW_PREFIX = "taskflow.";

export function isReservedWorkflow(name: string): boolean {
  return name.slice(0, RESERVED_WORKFLOW_PREFIX.length).toLowerCase() === RESERVED_WORKFLOW_PREFIX;
}

/** The definition of one of the engine's own workflows (workflow() refuses these names). */
export function engineWorkflow<I, O>(name: string, fn: WorkflowFn<I, O>): WorkflowDefinition<I, O> {
  if (!isReservedWorkflow(name)) throw new Error(`'${name}' is not an engine workflow name`);
  return Object.freeze({ kind: WORKFLOW_MARK, name, fn, options: {} });
}
