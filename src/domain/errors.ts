/**
 * The engine's errors: TaskflowError (a code from error-codes.ts, a reason from
 * error-reasons.ts, the ids it is about) and the factories that raise them. The
 * server maps codes to HTTP in one place (server/errors/error-mapping.ts).
 * Persisted, retry-aware workflow failures are a different thing and live apart
 * from these (see the durable runtime).
 */
import {
  codeOfReason,
  reasonMessage,
  type EngineReason,
  type ErrorReason,
  type ReasonParams,
} from "./error-reasons.ts";

// The codes live in error-codes.ts, which the reasons' catalogue reads too (no import circle).
export { ErrorCodes, type ErrorCode } from "./error-codes.ts";
import type { ErrorCode } from "./error-codes.ts";

/**
 * An error the engine raises on purpose: its `code` (how to react), its `reason`
 * (which situation, error-reasons.ts) and the reason's parameters, the ids it is
 * about, as typed fields (`params.taskId`). Raise one with `taskflowError`.
 */
export class TaskflowError<R extends EngineReason = EngineReason> extends Error {
  override readonly name = "TaskflowError";
  readonly reason: R;
  readonly params: ReasonParams<R>;
  /**
   * `new TaskflowError(code, message)` still works: its reason is the code's
   * generic one (named like the code), its `params` `{ detail: message }`.
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
    reason?: R,
    params?: ReasonParams<R>,
  ) {
    super(message);
    // A reason named like a code is that code's generic reason (error-reasons.ts).
    this.reason = reason ?? (code as R);
    this.params = params ?? ({ detail: message } as unknown as ReasonParams<R>);
  }
}

/** Empty for a reason whose message has no parameters, else its parameters. */
type ParamsArg<R extends ErrorReason> = [keyof ReasonParams<R>] extends [never]
  ? []
  : [params: ReasonParams<R>];

/** The error of one situation, its message from the catalogue's template. */
export function taskflowError<R extends EngineReason>(
  reason: R,
  ...[params]: ParamsArg<R>
): TaskflowError<R> {
  const p = (params ?? {}) as ReasonParams<R>;
  // An engine reason's code is an ErrorCode by EngineReason's definition; TypeScript
  // cannot see that through the generic lookup, so it is widened here once.
  const code: ErrorCode = codeOfReason<ErrorReason>(reason) as ErrorCode;
  return new TaskflowError<R>(code, reasonMessage(reason, p), reason, p);
}

/** @deprecated Raise the situation's reason: `taskflowError("InvalidParameter", { detail })`. */
export const validation = (message: string) => new TaskflowError("Validation", message);
/** @deprecated Raise the situation's reason: `taskflowError("TaskNotFound", { taskId })`. */
export const notFound = (what: string, id: string) =>
  new TaskflowError("NotFound", `${what} '${id}' was not found`);
/** @deprecated Raise the situation's reason, e.g. `taskflowError("ClaimedByOther", { taskId })`. */
export const forbidden = (message: string) => new TaskflowError("Forbidden", message);
/** @deprecated Raise the situation's reason, e.g. `taskflowError("TaskNotOpen", { taskId, status })`. */
export const notOpen = (message: string) => new TaskflowError("NotOpen", message);
/** @deprecated Raise the situation's reason, e.g. `taskflowError("RootClosed", { rootInstanceId })`. */
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
export class InvalidDocumentError<
  R extends DocumentReason = DocumentReason,
> extends TaskflowError<R> {
  constructor(
    message: string,
    readonly errors: readonly FieldError[],
    reason?: R,
    params?: ReasonParams<R>,
  ) {
    super("Validation", message, reason, params);
  }
}

/** The documents refused with their findings: a definition, a start's vars, a completion. */
export type DocumentReason =
  "Validation" | "InvalidDefinition" | "VarsMismatch" | "CompletionMismatch";

/** @deprecated Use `documentError("InvalidDefinition", { detail }, errors)`. */
export const invalidDocument = (message: string, errors: readonly FieldError[]) =>
  new InvalidDocumentError(message, errors);

/** A refused document of one situation, with every finding. */
export function documentError<R extends DocumentReason>(
  reason: R,
  params: ReasonParams<R>,
  errors: readonly FieldError[],
): InvalidDocumentError<R> {
  return new InvalidDocumentError(reasonMessage(reason, params), errors, reason, params);
}
