/**
 * When a failed step attempt is retried, and after how long: exponential
 * backoff with jitter, bounded by the policy; some failures are final at once.
 */
import { toMs } from "../../domain/duration.ts";
import { NonRetryableError, type WorkflowFailure } from "../../domain/workflow-failure.ts";
import type { RetryPolicy, StepOptions } from "./types.ts";

export type ResolvedRetryPolicy = Required<RetryPolicy>;

/** 3 attempts, 100 ms then 200 ms apart (before jitter), never more than a minute. */
export const DEFAULT_RETRY: ResolvedRetryPolicy = {
  maxAttempts: 3,
  initialInterval: 100,
  backoff: 2,
  maxInterval: 60_000,
};

/** The step's policy over the workflow's over the defaults, field by field. */
export function resolveRetryPolicy(
  workflow: RetryPolicy | undefined,
  step: RetryPolicy | undefined,
): ResolvedRetryPolicy {
  return { ...DEFAULT_RETRY, ...workflow, ...step };
}

/**
 * Milliseconds to wait before the next attempt, or null when this failure is
 * final: the error says retrying cannot help (NonRetryableError, a failure
 * marked non-retryable, an error listed in the step's `nonRetryable`), or the
 * attempts are used up.
 */
export function retryDelay(
  policy: ResolvedRetryPolicy,
  attempt: number,
  error: unknown,
  failure: WorkflowFailure,
  nonRetryable: StepOptions["nonRetryable"],
): number | null {
  if (failure.nonRetryable || isListed(error, nonRetryable)) return null;
  if (attempt >= Math.max(1, policy.maxAttempts)) return null;
  return backoffDelay(policy, attempt);
}

/**
 * Exponential backoff with "equal jitter": half fixed, half random, so the
 * delay lies in [base/2, base] — spread enough that runs failing together do
 * not retry together, and never less than half the intended wait.
 */
export function backoffDelay(
  p: ResolvedRetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(
    toMs(p.maxInterval),
    toMs(p.initialInterval) * Math.pow(p.backoff, attempt - 1),
  );
  return Math.round(base / 2 + random() * (base / 2));
}

function isListed(e: unknown, list: StepOptions["nonRetryable"]): boolean {
  if (e instanceof NonRetryableError) return true;
  if (list === undefined || !(e instanceof Error)) return false;
  return list.some((x) => (typeof x === "string" ? e.name === x : e instanceof x));
}
