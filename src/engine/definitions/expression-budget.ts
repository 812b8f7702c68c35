/**
 * What one JSONata evaluation may use, and the typed errors a run fails with
 * when an expression breaks or overspends. Evaluation runs off the main thread
 * (expression-sandbox.ts), so the budget holds for every expression: the
 * worker's own checks stop the usual cases cleanly, and a terminated worker
 * stops the rest (one builtin call such as `$pad("", 1e8)` that no check
 * between evaluation steps can interrupt).
 */
import { NonRetryableError } from "../../domain/workflow-failure.ts";

export interface ExpressionBudget {
  /** Wall time of one evaluation, ms: checked at every evaluation step, and the worker is terminated past it. */
  timeMs: number;
  /** Nesting of evaluation steps (JSONata's `stack` guardrail): a runaway recursion stops here. */
  depth: number;
  /** Longest sequence one evaluation may build. */
  sequence: number;
  /** The worker's heap (old generation), MiB: past it the worker dies and is replaced. */
  heapMb: number;
  /** The result as JSON, in UTF-16 code units (it goes into the run's vars and history). */
  resultChars: number;
}

export const EXPRESSION_BUDGET: Readonly<ExpressionBudget> = Object.freeze({
  timeMs: 1_000,
  depth: 500,
  sequence: 100_000,
  heapMb: 64,
  resultChars: 1_000_000,
});

/**
 * Functions an expression may not call: `$eval` turns data into code, so a
 * definition evaluating a hook's payload would run whatever the caller sent.
 * Refused at validation and unbound at evaluation.
 */
export const REMOVED_FUNCTIONS: readonly string[] = ["eval"];

/** A JSONata runtime error (a wrong type, an unknown function, a bad regex…): the run fails with it. */
export class ExpressionError extends NonRetryableError {
  override name = "ExpressionError";
  readonly failureType = "expression";
  constructor(
    message: string,
    /** JSONata's code (T2001, D3001…), when it gave one. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export type BudgetLimit = "time" | "depth" | "sequence" | "memory" | "result";

/** An evaluation that overspent its budget: the run fails with it; no other evaluation waits for it. */
export class ExpressionBudgetExceeded extends NonRetryableError {
  override name = "ExpressionBudgetExceeded";
  readonly failureType = "expression-budget";
  constructor(
    readonly limit: BudgetLimit,
    message: string,
  ) {
    super(message);
  }
}

/** JSONata's errors are plain objects ({ code, position, token, message }): this names what they say. */
export function describeJsonataError(e: unknown): { message: string; code: string | undefined } {
  if (typeof e !== "object" || e === null) return { message: String(e), code: undefined };
  const err = e as { message?: unknown; position?: unknown; code?: unknown; token?: unknown };
  const code = typeof err.code === "string" ? err.code : undefined;
  const text =
    typeof err.message === "string" && err.message !== ""
      ? err.message
      : e instanceof Error
        ? String(e)
        : JSON.stringify(e);
  const at = typeof err.position === "number" ? ` at character ${err.position}` : "";
  return { message: `JSONata error${code ? ` ${code}` : ""}${at}: ${text}`, code };
}
