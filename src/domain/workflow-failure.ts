/**
 * Workflow failures: what a run records when a step or the workflow itself
 * fails. Unlike TaskflowError (errors.ts — local, mapped to HTTP), a failure is
 * persisted in the run's history, replayed on another node, and therefore plain
 * serialisable data. Temporal keeps the same split (failure.ts vs errors.ts).
 */

/** The persisted form of an error. */
export interface WorkflowFailure {
  name: string;
  message: string;
  stack: string | null;
  /** True when retrying cannot help (NonRetryableError, cancellation, non-determinism). */
  nonRetryable: boolean;
  /**
   * Extra kind for engine failures: "cancelled", "nondeterminism", "timeout",
   * "expression" (a JSONata runtime error), "expression-budget", "quarantined",
   * "child-vars" (a subProcess child's vars refused by its schema).
   */
  type?: string;
}

/** Thrown by step code to fail at once, without retries. */
export class NonRetryableError extends Error {
  override name = "NonRetryableError";
}

/** Thrown (rethrown on replay) when a step failed for good; carries the recorded failure. */
export class StepFailedError extends Error {
  override name = "StepFailedError";
  constructor(
    readonly step: string,
    readonly failure: WorkflowFailure,
  ) {
    super(`step '${step}' failed: ${failure.name}: ${failure.message}`);
  }
}

/** Rethrown by ctx.child when the child run failed or was cancelled. */
export class ChildFailedError extends StepFailedError {
  override name = "ChildFailedError";
}

/** Thrown by the next ctx call of a run whose cancellation was requested. */
export class CancelledFailure extends Error {
  override name = "CancelledFailure";
  constructor(message = "the run was cancelled") {
    super(message);
  }
}

/**
 * A run kept from every worker because its executions kept ending without
 * parking or finishing (a crash, kill -9, out of memory, a lost lease, each
 * time): replaying it again at every start would fail again.
 */
export class RunQuarantined extends NonRetryableError {
  override name = "RunQuarantined";
  readonly failureType = "quarantined";
  constructor(readonly executions: number) {
    super(
      `quarantined: its last ${executions} executions in a row ended without parking, finishing or ` +
        `continuing as new (a crash, kill -9, out of memory or a lost lease each time); ` +
        `no worker picks it up until it is released (docs/durable.md, Quarantine)`,
    );
  }
}

/** A step attempt that ran past its timeout. Retryable. */
export class StepTimeoutError extends Error {
  override name = "StepTimeoutError";
}

/**
 * Replayed workflow code asked for something other than what its history
 * recorded at that position: the code changed without `ctx.patched()`.
 */
export class NonDeterminismError extends Error {
  override name = "NonDeterminismError";
  constructor(
    readonly seq: number,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `non-determinism at history position ${seq}: history has ${expected} but the code now calls ${actual}` +
        ` (guard changed code with ctx.patched(id))`,
    );
  }
}

export function toFailure(e: unknown): WorkflowFailure {
  if (e instanceof StepFailedError) return e.failure;
  if (e instanceof Error) {
    const f: WorkflowFailure = {
      name: e.name,
      message: e.message,
      stack: e.stack ?? null,
      nonRetryable:
        e instanceof NonRetryableError ||
        e instanceof CancelledFailure ||
        e instanceof NonDeterminismError,
    };
    if (e instanceof CancelledFailure) f.type = "cancelled";
    else if (e instanceof NonDeterminismError) f.type = "nondeterminism";
    else if (e instanceof StepTimeoutError) f.type = "timeout";
    else {
      // An engine error that names its kind (an expression's, a quarantine…).
      const kind = (e as { failureType?: unknown }).failureType;
      if (typeof kind === "string") f.type = kind;
    }
    return f;
  }
  return { name: "Error", message: String(e), stack: null, nonRetryable: false };
}

export function isFailure(v: unknown): v is WorkflowFailure {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as WorkflowFailure).name === "string" &&
    typeof (v as WorkflowFailure).message === "string"
  );
}
