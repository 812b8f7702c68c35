/**
 * Run failures as the API returns them. A recorded failure keeps the stack
 * of the error (for operators: the log and the stored history have it), and
 * a stack names server files (`at charge (/srv/app/dist/order.js:41:11)`).
 * Unless the operator sets exposeErrorStacks, the API returns `stack: null`;
 * the field stays so the shape does not depend on the setting.
 */
import { isFailure, type WorkflowFailure } from "../domain/workflow-failure.ts";

export function hideStack(f: WorkflowFailure | null): WorkflowFailure | null {
  return f === null || f.stack === null ? f : { ...f, stack: null };
}

/** History events carry failures as `data.failure` (step, step_retry, child, nondeterminism). */
export function withoutStack<E extends { data: unknown }>(e: E): E {
  const data = e.data;
  if (typeof data !== "object" || data === null || !("failure" in data)) return e;
  const failure = data.failure;
  if (!isFailure(failure) || failure.stack === null) return e;
  return { ...e, data: { ...data, failure: { ...failure, stack: null } } };
}
