/**
 * Run failures as the API returns them. A recorded failure keeps the stack
 * of the error (for operators: the log and the stored history have it), and
 * a stack names server files (`at charge (/srv/app/dist/order.js:41:11)`).
 * Unless the operator sets exposeErrorStacks, the API returns `stack: null`;
 * the field stays so the shape does not depend on the setting.
 */
import { isFailure, type WorkflowFailure } from "../../domain/workflow-failure.ts";

export function hideStack(f: WorkflowFailure | null): WorkflowFailure | null {
  return f === null || f.stack === null ? f : { ...f, stack: null };
}

/**
 * History events carry failures as `data.failure` (step, step_retry, child,
 * nondeterminism) and, for attempts retried in memory, `data.retried[].failure`.
 */
export function withoutStack<E extends { data: unknown }>(e: E): E {
  const data = e.data;
  if (typeof data !== "object" || data === null) return e;
  const failure = "failure" in data && isFailure(data.failure) ? data.failure : null;
  const hasStack = failure !== null && failure.stack !== null;
  const retried = "retried" in data && Array.isArray(data.retried) ? data.retried : null;
  if (!hasStack && retried === null) return e;
  return {
    ...e,
    data: {
      ...data,
      ...(hasStack ? { failure: hideStack(failure) } : {}),
      ...(retried === null ? {} : { retried: retried.map(withoutAttemptStack) }),
    },
  };
}

function withoutAttemptStack(a: unknown): unknown {
  if (typeof a !== "object" || a === null || !("failure" in a) || !isFailure(a.failure)) return a;
  return { ...a, failure: hideStack(a.failure) };
}
