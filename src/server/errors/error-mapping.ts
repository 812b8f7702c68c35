/**
 * THE one place that maps error codes to HTTP statuses and renders errors as
 * RFC 9457 problem documents. Engine errors (TaskflowError), Fastify's own
 * errors (schema validation, bad JSON, body too large, unsupported media type)
 * and unknown routes all come out as `application/problem+json`. Bad input is
 * never a 500; an unexpected error is a 500 that leaks nothing but the request id.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvalidDocumentError, isTaskflowError, type FieldError } from "../../domain/errors.ts";
import {
  codeOfReason,
  reasonMessage,
  type ErrorReason,
  type ProblemCode,
  type ReasonParams,
} from "../../domain/error-reasons.ts";
import { isUnavailable } from "../../domain/unavailable.ts";
import { drainRequest } from "../hooks/drain-request.ts";
import type * as Wire from "../../client/wire/index.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

// Not in the engine's catalogue (errors.ts); the reasons' catalogue holds them (error-reasons.ts).
export { SERVER_PROBLEM_CODES, type ProblemCode } from "../../domain/error-reasons.ts";

/**
 * The problem document as the server writes it: the wire's `Problem`
 * (src/client/wire/problem.ts) with its code and reason narrowed to the
 * server's catalogues, so a field the wire does not know fails to compile.
 */
export interface Problem extends Omit<Wire.Problem, "code" | "reason" | "errors"> {
  code: ProblemCode;
  /** The situation (error-reasons.ts): finer than `code`, and as stable. */
  reason: ErrorReason & Wire.ProblemReason;
  /** Every finding of a rejected document (e.g. a definition), each at its JSON pointer. */
  errors?: readonly (FieldError & Wire.ProblemFieldError)[];
}

const STATUS: Record<ProblemCode, number> = {
  Validation: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotOpen: 409,
  Conflict: 409,
  InProgress: 409,
  TooLarge: 413,
  UnsupportedMediaType: 415,
  Unprocessable: 422,
  RateLimited: 429,
  Internal: 500,
  Unavailable: 503,
};

const TITLE: Record<ProblemCode, string> = {
  Validation: "Invalid request",
  Unauthorized: "Unauthorized",
  Forbidden: "Forbidden",
  NotFound: "Not found",
  MethodNotAllowed: "Method not allowed",
  NotOpen: "Task is not open",
  Conflict: "Conflict",
  InProgress: "Request in progress",
  TooLarge: "Payload too large",
  UnsupportedMediaType: "Unsupported media type",
  Unprocessable: "Idempotency key reused",
  RateLimited: "Too many requests",
  Internal: "Internal server error",
  Unavailable: "Service unavailable",
};

export const statusOf = (code: ProblemCode): number => STATUS[code];

/**
 * Seconds a client should wait before retrying a 503 for an unreachable
 * database. Every node shares the database, so retrying elsewhere does not
 * help; a PostgreSQL or MariaDB restart or failover takes a few seconds, and
 * the pool reconnects on the first request after it.
 */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/** A problem of the code's generic reason (named like the code), or of `reason`. */
export function problem(code: ProblemCode, detail: string, reason: ErrorReason = code): Problem {
  // A URN rather than a URL: stable, and it does not pretend a page exists.
  return {
    type: `urn:taskflow:problem:${code}`,
    title: TITLE[code],
    status: STATUS[code],
    detail,
    code,
    reason,
  };
}

/** The problem of one situation, its detail from the catalogue's template. */
export function reasonProblem<R extends ErrorReason>(reason: R, params: ReasonParams<R>): Problem {
  return problem(codeOfReason(reason), reasonMessage(reason, params), reason);
}

/**
 * Fastify's own 4xx errors carry a status but no catalogue code. Every 4xx
 * without a code of its own becomes Validation: all of them mean "fix the request".
 */
const CODE_BY_STATUS: Partial<Record<number, ProblemCode>> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "TooLarge",
  415: "UnsupportedMediaType",
  429: "RateLimited",
};

/** The detail of every 415: what to send instead. */
export const UNSUPPORTED_MEDIA_TYPE_DETAIL =
  "a request body must be JSON sent with Content-Type: application/json";

/**
 * Ajv's "must NOT have additional properties" does not say which one; a query
 * parameter the route does not know is named, so a typo is found at once.
 */
function validationDetail(fe: Partial<FastifyError>): string {
  const first = fe.validation?.[0];
  const extra = (first?.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
  if (first?.keyword === "additionalProperties" && typeof extra === "string") {
    const where = fe.validationContext === "querystring" ? "query parameter" : "property";
    return `unknown ${where} '${extra.slice(0, 200)}'`;
  }
  // "querystring/status must be …" → "query parameter 'status' must be …", with the allowed values.
  const param = /^\/([A-Za-z]+)$/.exec(first?.instancePath ?? "")?.[1];
  if (fe.validationContext === "querystring" && param !== undefined && first?.message) {
    const allowed = (first.params as { allowedValues?: unknown } | undefined)?.allowedValues;
    const values = Array.isArray(allowed) ? ` (${allowed.join(", ")})` : "";
    return `query parameter '${param}' ${first.message}${values}`;
  }
  return fe.message ?? "invalid request";
}

export function toProblem(err: unknown, requestId: string): Problem {
  if (err instanceof InvalidDocumentError)
    return { ...problem(err.code, err.message, err.reason as ErrorReason), errors: err.errors };
  if (isTaskflowError(err)) return problem(err.code, err.message, err.reason);
  if (isUnavailable(err)) return problem("Unavailable", err.message, "BackendUnreachable");
  const fe = err as Partial<FastifyError>;
  if (fe.validation) return problem("Validation", validationDetail(fe), "SchemaViolation");
  const status = typeof fe.statusCode === "number" ? fe.statusCode : 500;
  if (status === 415) return problem("UnsupportedMediaType", UNSUPPORTED_MEDIA_TYPE_DETAIL);
  if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE")
    return problem("TooLarge", fe.message ?? "Request body is too large", "BodyTooLarge");
  if (status >= 400 && status < 500) {
    return problem(CODE_BY_STATUS[status] ?? "Validation", fe.message ?? "invalid request");
  }
  return reasonProblem("UnexpectedError", { requestId });
}

export function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  return reply.code(p.status).type(PROBLEM_CONTENT_TYPE).send(p);
}

/** The driver's words for an outage, e.g. "read ECONNRESET" (pg's AggregateErrors have no message). */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause as { message?: unknown; code?: unknown };
  if (typeof cause?.message === "string" && cause.message !== "") return cause.message;
  return typeof cause?.code === "string" ? cause.code : "unknown cause";
}

function logProblem(req: FastifyRequest, p: Problem, err: unknown): void {
  // An outage, not a bug: one line per request with the driver's cause, no stack.
  if (p.code === "Unavailable") req.log.warn({ cause: causeOf(err) }, p.detail);
  else if (p.status >= 500) req.log.error({ err }, "unhandled error");
  else req.log.info({ code: p.code, detail: p.detail }, "request refused");
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const p = toProblem(err, req.id);
    if (p.code === "Unavailable")
      void reply.header("retry-after", String(UNAVAILABLE_RETRY_AFTER_S));
    // Not for a refusal the key check chose to leave out of the log (refusal-log.ts).
    if (req.quietLog !== true) logProblem(req, p, err);
    // The client may still be sending the refused body; see drain-request.ts.
    if (p.code === "TooLarge") await drainRequest(req.raw);
    return sendProblem(reply, p);
  });
  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) =>
    sendProblem(
      reply,
      problem(
        "NotFound",
        `no route ${req.method} ${(req.url.split("?")[0] ?? "").slice(0, 200)}`,
        "RouteNotFound",
      ),
    ),
  );
}
