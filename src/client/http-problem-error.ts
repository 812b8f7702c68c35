/**
 * A non-2xx answer that carries an `application/problem+json` body: the server
 * refused the request for a reason in its catalogue. Branch on `code`; `detail`
 * is for people and may change.
 */
import type { Problem, ProblemCode } from "./client-types.ts";
import type { ProblemReason } from "./problem-reasons.ts";

export class TaskflowHttpError extends Error {
  override readonly name = "TaskflowHttpError";
  /** The HTTP status (400, 401, 403, 404, 409, 413, 422, 429, 500, 503 …). */
  readonly status: number;
  /** The stable catalogue code: `Validation`, `NotOpen`, `Conflict`, … */
  readonly code: ProblemCode;
  /** The situation, e.g. `TaskNotClaimed` for a `Conflict`; undefined from a server without reasons. */
  readonly reason: ProblemReason | undefined;
  readonly title: string;
  readonly detail: string;
  /** The problem `type` URN, e.g. `urn:taskflow:problem:NotOpen`. */
  readonly type: string;
  /** Seconds from the `Retry-After` header (429 `RateLimited`, 503 `Unavailable`), when present. */
  readonly retryAfter: number | undefined;
  /** The request, as `METHOD /path` (no host, no query, no headers). */
  readonly request: string;

  constructor(request: string, problem: Problem, retryAfter: number | undefined) {
    // The message names the route and the problem only: never headers, so never the API key.
    super(`${request}: ${problem.status} ${problem.code}: ${problem.detail}`);
    this.request = request;
    this.status = problem.status;
    this.code = problem.code;
    this.reason = problem.reason;
    this.title = problem.title;
    this.detail = problem.detail;
    this.type = problem.type;
    this.retryAfter = retryAfter;
  }
}

export const isTaskflowHttpError = (e: unknown): e is TaskflowHttpError =>
  e instanceof TaskflowHttpError;
