/** The `application/problem+json` body of every refusal (RFC 9457; docs/api.md, "Errors"). */
import { ErrorCodes } from "../../domain/errors.ts";
import type { ProblemReason } from "../problem-reasons.ts";

export type { ProblemReason };

/**
 * The engine's error catalogue, from the pure domain layer — the one thing the
 * client takes from the engine's source, so the two cannot drift.
 */
export { ErrorCodes };

/**
 * A problem `code`: the catalogue, plus `MethodNotAllowed` (405, a hook path
 * without that method), `UnsupportedMediaType` (415), `Internal` (500) and
 * `Unavailable` (503), which only the server produces. A newer server may add
 * codes, so any string is accepted at run time.
 */
export type ProblemCode =
  | (typeof ErrorCodes)[number]
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "Internal"
  | "Unavailable"
  // `string & Record<never, never>` rather than `string`: editors still offer the known codes.
  | (string & Record<never, never>);

/** One finding of a rejected document (e.g. a definition), at its JSON pointer. */
export interface ProblemFieldError {
  pointer: string;
  reason: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  /** The situation within `code` (e.g. `RootClosed` of a `Conflict`); missing from older servers. */
  reason?: ProblemReason;
  /** Every finding of a rejected document; only on such a `Validation`. */
  errors?: ProblemFieldError[];
}
