/**
 * The catalogue of local error codes. Every error the engine raises on purpose
 * carries one of these stable strings (how a caller reacts: retry, fix the
 * input, ask for access); the server maps them to HTTP in one place
 * (server/errors/error-mapping.ts). The finer `reason` of each situation is in
 * error-reasons.ts.
 */
export const ErrorCodes = [
  "Validation",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "NotOpen",
  "Conflict",
  "TooLarge",
  "RateLimited",
  // Idempotency-Key (server/idempotency.ts): the first request with the key still runs,
  // or the key was used with a different request.
  "InProgress",
  "Unprocessable",
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];
