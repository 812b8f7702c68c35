/**
 * Every POST under /v1 takes the Idempotency-Key header: this onRoute hook
 * adds it to the route's header schema (so a malformed key is a 400 naming
 * the header, like any bad header, and /openapi.json documents it) and adds
 * the answers it brings, 409 `InProgress` and 422 `Unprocessable`, to the
 * route's responses. Done here once rather than in each route file, so a new
 * POST route cannot forget it.
 */
import type { RouteOptions } from "fastify";
import type { ProblemCode } from "../errors/error-mapping.ts";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "./idempotency-key.ts";
import { addProblemCodes } from "../openapi/openapi-responses.ts";

const IDEMPOTENCY_CODES: readonly ProblemCode[] = ["InProgress", "Unprocessable"];

const keyHeader = {
  type: "string",
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    "Optional. A key (1–255 visible ASCII characters, e.g. a UUID) that makes the request " +
    "safe to retry: the same key with the same request is answered with the first answer " +
    "(header Idempotent-Replayed: true) for 24 h; with another request it is 422 " +
    "Unprocessable; while the first still runs, 409 InProgress.",
  examples: ["5f0c6e9e-2b1d-4f7a-9c3e-8d2a1b0c4e6f"],
};

interface HeaderSchema {
  type?: string;
  properties?: Record<string, unknown>;
}

export function addIdempotencyToSchema(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.includes("POST")) return;
  const schema = { ...(route.schema ?? {}) } as Record<string, unknown>;
  // Copies, never edits: route files share their header schemas (actorHeaders).
  const headers = (schema.headers ?? { type: "object" }) as HeaderSchema;
  schema.headers = {
    ...headers,
    properties: { ...headers.properties, [IDEMPOTENCY_KEY_HEADER]: keyHeader },
  };
  const response = (schema.response ?? {}) as Record<number, object>;
  schema.response = addProblemCodes(response, IDEMPOTENCY_CODES);
  route.schema = schema;
}
