/**
 * A request that got no usable answer: the server was unreachable (`network`),
 * it did not answer within the timeout (`timeout`), or it answered with
 * something that is not the API's JSON (`response`: a non-JSON body, or an error
 * status without a problem document, e.g. a proxy's 502 page). The request may
 * or may not have taken effect, except for `network` failures before a
 * connection was made.
 */
export type RequestErrorKind = "network" | "timeout" | "response";

export class TaskflowRequestError extends Error {
  override readonly name = "TaskflowRequestError";
  readonly kind: RequestErrorKind;
  /** The request, as `METHOD /path` (no host, no query, no headers). */
  readonly request: string;
  /** The HTTP status, for a `response` failure. */
  readonly status: number | undefined;

  constructor(
    kind: RequestErrorKind,
    request: string,
    detail: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(`${request}: ${detail}`, { cause: options.cause });
    this.kind = kind;
    this.request = request;
    this.status = options.status;
  }
}

export const isTaskflowRequestError = (e: unknown): e is TaskflowRequestError =>
  e instanceof TaskflowRequestError;
