/**
 * Response entries of the route schemas, as OpenAPI shows them: each success
 * status with its schema, a description and an example; each error status with
 * the problem+json schema whose `code` lists the codes that route can answer
 * with (error-mapping.ts holds the code → status map). The same schemas
 * serialise the responses, so what /openapi.json says is what is sent.
 */
import { codeOfReason, ErrorReasons } from "../../domain/error-reasons.ts";
import {
  PROBLEM_CONTENT_TYPE,
  problem,
  statusOf,
  type ProblemCode,
} from "../errors/error-mapping.ts";

/** Answered by every /v1 route: a bad header, the API key, the rate limit, a bug, an outage. */
const API_CODES: readonly ProblemCode[] = [
  "Validation",
  "Unauthorized",
  "RateLimited",
  "Internal",
  "Unavailable",
];

/** What a request body adds: too large, not sent as application/json. */
const BODY_CODES: readonly ProblemCode[] = ["TooLarge", "UnsupportedMediaType"];

const EXAMPLE_DETAIL: Record<ProblemCode, string> = {
  Validation: "query parameter 'limit' must be <= 500",
  Unauthorized: "missing or invalid X-API-Key",
  Forbidden: "task '0193a1b2-7c10-7d2e-9a41-3b5c6d7e8f90' is assigned to another user",
  NotFound: "task '0193a1b2-7c10-7d2e-9a41-3b5c6d7e8f90' was not found",
  MethodNotAllowed: "POST /v1/hooks/orders/42 has no trigger; allowed: GET, PUT",
  NotOpen: "task '0193a1b2-7c10-7d2e-9a41-3b5c6d7e8f90' is done",
  Conflict: "process '0193a1b2-6f00-7c22-8f10-0a1b2c3d4e5f' is already completed",
  InProgress: "a request with this Idempotency-Key is still in progress; retry later",
  TooLarge: "Request body is too large",
  UnsupportedMediaType: "a request body must be JSON sent with Content-Type: application/json",
  Unprocessable: "this Idempotency-Key was used with a different request",
  RateLimited: "rate limit exceeded; retry after 1 s",
  Internal: "unexpected error; see the server log for request 0193a1b2-aa00-7000-8000-000000000001",
  Unavailable: "the database is unreachable",
};

const codeList = (codes: readonly ProblemCode[]) => codes.map((c) => `\`${c}\``).join(", ");

function problemSchema(codes: readonly ProblemCode[]) {
  return {
    type: "object",
    description: `RFC 9457 problem details. \`code\` is one of ${codeList(codes)}.`,
    required: ["type", "title", "status", "detail", "code", "reason"],
    properties: {
      type: { type: "string", description: "urn:taskflow:problem:<code>" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string", description: "For people; may change. Branch on `code`." },
      code: { type: "string", enum: [...codes] },
      reason: { type: "string", enum: ErrorReasons.filter((r) => codes.includes(codeOfReason(r))) },
      errors: {
        type: "array",
        description:
          "Only for a rejected document (a definition): every finding, each at its JSON pointer.",
        items: {
          type: "object",
          required: ["pointer", "reason"],
          properties: { pointer: { type: "string" }, reason: { type: "string" } },
        },
      },
    },
  };
}

/** One problem+json response per status, each listing its codes. */
export function errorResponses(codes: readonly ProblemCode[]): Record<number, object> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const c of new Set(codes))
    byStatus.set(statusOf(c), [...(byStatus.get(statusOf(c)) ?? []), c]);
  const out: Record<number, object> = {};
  for (const [status, cs] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[status] = {
      description: `Problem: ${codeList(cs)}`,
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: problemSchema(cs),
          example: problem(cs[0]!, EXAMPLE_DETAIL[cs[0]!]),
        },
      },
    };
  }
  return out;
}

/** The errors of a /v1 route: the common ones, the body's for a POST, and its own. */
export function apiErrors(opts: { body?: boolean }, ...own: ProblemCode[]) {
  return errorResponses([...API_CODES, ...(opts.body ? BODY_CODES : []), ...own]);
}

/** A JSON success response with its description and an example. */
export function jsonResponse(description: string, schema: object, example: unknown) {
  return { description, content: { "application/json": { schema, example } } };
}

interface ProblemResponse {
  content?: Record<string, { schema?: { properties?: { code?: { enum?: ProblemCode[] } } } }>;
}

/**
 * `responses` with `codes` added: a status the route already answers keeps its
 * codes and gains the new ones (409 Conflict and InProgress in one entry).
 */
export function addProblemCodes(
  responses: Readonly<Record<number, object>>,
  codes: readonly ProblemCode[],
): Record<number, object> {
  const out: Record<number, object> = { ...responses };
  for (const code of codes) {
    const status = statusOf(code);
    const known =
      (out[status] as ProblemResponse | undefined)?.content?.[PROBLEM_CONTENT_TYPE]?.schema
        ?.properties?.code?.enum ?? [];
    out[status] = errorResponses([...known, code])[status]!;
  }
  return out;
}
