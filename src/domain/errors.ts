/**
 * The catalogue of local error codes. Every error the engine raises on purpose
 * carries one of these stable strings; the server maps them to HTTP in one place
 * (server/error-mapping.ts). Persisted, retry-aware workflow failures are a
 * different thing and live apart from these (see the durable runtime).
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

export class TaskflowError extends Error {
  override readonly name = "TaskflowError";
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const validation = (message: string) => new TaskflowError("Validation", message);
export const notFound = (what: string, id: string) =>
  new TaskflowError("NotFound", `${what} '${id}' was not found`);
export const forbidden = (message: string) => new TaskflowError("Forbidden", message);
export const notOpen = (message: string) => new TaskflowError("NotOpen", message);
export const conflict = (message: string) => new TaskflowError("Conflict", message);

export function isTaskflowError(e: unknown): e is TaskflowError {
  return e instanceof TaskflowError;
}

/** One finding about a document: where (a JSON pointer, RFC 6901) and what is wrong there. */
export interface FieldError {
  pointer: string;
  reason: string;
}

/** A Validation error that lists every finding; the problem document carries them as `errors`. */
export class InvalidDocumentError extends TaskflowError {
  constructor(
    message: string,
    readonly errors: readonly FieldError[],
  ) {
    super("Validation", message);
  }
}

export const invalidDocument = (message: string, errors: readonly FieldError[]) =>
  new InvalidDocumentError(message, errors);
