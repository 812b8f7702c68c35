/**
 * A backend the engine depends on (the store) cannot be reached now: the
 * connection could not be made or was lost. The request itself was fine and
 * may succeed if retried later, so the server answers 503 `Unavailable` with
 * `Retry-After`, not 500. Adapters raise it from their drivers' own error
 * shapes; the original error is the `cause`, for the log. Not a catalogue code
 * (errors.ts): nothing the engine decides, and only ever a reason to retry.
 */
export class UnavailableError extends Error {
  override readonly name = "UnavailableError";
  readonly code = "Unavailable";
}

export function isUnavailable(e: unknown): e is UnavailableError {
  return e instanceof UnavailableError;
}
