/**
 * THE catalogue of error reasons: one stable PascalCase name per situation a
 * request or a call can be refused in, each with its code (hence its HTTP
 * status, server/error-mapping.ts) and the template of its message. A code
 * says how to react (fix the request, retry, give up); a reason says what
 * happened, so a caller can branch on it: `Conflict` alone is a closed root, a
 * draft changed during publish or an unclaimed group task; `RootClosed`,
 * `DraftChanged` and `TaskNotClaimed` tell them apart. Fastify's lib/errors.js
 * (a code and a message template per error) and DBOS's src/error.ts (one
 * error per situation, carrying its ids) are the models.
 *
 * A reason named like its code (`Validation`, `Conflict`, …) is that code's
 * generic reason, its message `{detail}`: what `new TaskflowError(code, message)`
 * and the deprecated helpers of errors.ts raise, and what the server answers
 * for a framework error the catalogue has no name for.
 *
 * Templates name their parameters in braces; the parameters are the error's
 * typed fields (`err.params.taskId`). `{detail}` stands for words that differ
 * from one throw site to the next within one situation. docs/api.md lists every
 * reason, the client holds the list of names (src/client/problem-reasons.ts),
 * and test/unit/server/error-catalogue.test.ts holds the four equal.
 */
import type { ErrorCode } from "./error-codes.ts";

/**
 * Codes only the server answers with, never the engine: UnsupportedMediaType
 * for a body not sent as application/json, MethodNotAllowed for a hook path
 * (/v1/hooks/…) with triggers but none for the method, Internal for a bug,
 * Unavailable for a node shutting down or a backend out of reach.
 */
export const SERVER_PROBLEM_CODES = [
  "UnsupportedMediaType",
  "MethodNotAllowed",
  "Internal",
  "Unavailable",
] as const;
export type ProblemCode = ErrorCode | (typeof SERVER_PROBLEM_CODES)[number];

interface ReasonEntry {
  readonly code: ProblemCode;
  readonly message: string;
}

export const ERROR_REASONS = {
  // ── 400 Validation: fix the request ──────────────────────────────────────
  Validation: { code: "Validation", message: "{detail}" },
  SchemaViolation: { code: "Validation", message: "{detail}" },
  MalformedHttp: { code: "Validation", message: "the request is not valid HTTP/1.1" },
  RequestTimeout: { code: "Validation", message: "the request was not received in time" },
  ProxyRequest: { code: "Validation", message: "CONNECT is not supported: this is not a proxy" },
  HostHeaderMissing: { code: "Validation", message: "HTTP/1.1 requests need a Host header" },
  MalformedPath: { code: "Validation", message: "{detail}" },
  MalformedJson: { code: "Validation", message: "{detail}" },
  BodyRequired: { code: "Validation", message: "a definition is required as the request body" },
  BodyNotObject: { code: "Validation", message: "the body must be a JSON object" },
  UnstorableText: { code: "Validation", message: "{detail}" },
  InvalidParameter: { code: "Validation", message: "{detail}" },
  MalformedCursor: { code: "Validation", message: "{detail}" },
  InvalidId: { code: "Validation", message: "{detail}" },
  UnknownUser: { code: "Validation", message: "{field}: unknown user '{userId}'" },
  UnknownGroup: { code: "Validation", message: "{field}: unknown group '{groupId}'" },
  UnknownStarter: {
    code: "Validation",
    message:
      "the run was started by '{userId}', whom the directory (WF_USERS) does not know: ctx.humanTask assigns on the starter's behalf, so it cannot assign",
  },
  InvalidAssignee: { code: "Validation", message: "{detail}" },
  InvalidTaskDetails: { code: "Validation", message: "{detail}" },
  AssignmentTooDeep: {
    code: "Validation",
    message: "onAllCompleted nests deeper than {max} levels",
  },
  DefinitionKeyRequired: {
    code: "Validation",
    message: "definitionKey is required when parentInstanceId is absent",
  },
  InvalidDefinition: { code: "Validation", message: "{detail}" },
  VarsMismatch: { code: "Validation", message: "the vars do not match the schema of '{key}'" },
  CompletionMismatch: {
    code: "Validation",
    message: "the completion does not match what the task asks (its actions and form)",
  },
  InvalidDuration: { code: "Validation", message: "{detail}" },
  InvalidSignalName: { code: "Validation", message: "{detail}" },
  InvalidIdempotencyKey: { code: "Validation", message: "{detail}" },
  InvalidApiKeyRequest: { code: "Validation", message: "{detail}" },
  InvalidRegistration: { code: "Validation", message: "{detail}" },
  InvalidEnginePath: {
    code: "Validation",
    message: "an engine path is segments of letters, digits and . _ ~ @ : -",
  },
  InvalidArgument: { code: "Validation", message: "{detail}" },
  InvalidDatabaseUrl: { code: "Validation", message: "{detail}" },
  // ── 401 Unauthorized: authenticate ───────────────────────────────────────
  Unauthorized: { code: "Unauthorized", message: "{detail}" },
  ApiKeyRejected: { code: "Unauthorized", message: "missing or invalid X-API-Key" },
  LoginRequired: { code: "Unauthorized", message: "log in to the Console first" },
  NoLoginToRefresh: { code: "Unauthorized", message: "no Console login to refresh" },
  LoginEnded: { code: "Unauthorized", message: "the Console login has ended; log in again" },
  LoginCodeRejected: { code: "Unauthorized", message: "{detail}" },
  // ── 403 Forbidden: this actor or key may not ─────────────────────────────
  Forbidden: { code: "Forbidden", message: "{detail}" },
  TenantNotPermitted: {
    code: "Forbidden",
    message: "this API key may act for tenant '{tenant}' only",
  },
  EveryTenantKeyRequired: {
    code: "Forbidden",
    message: "this API key may act for tenant '{tenant}' only; {detail}",
  },
  ClaimNotPermitted: {
    code: "Forbidden",
    message: "actor '{actorId}' may not claim task '{taskId}'",
  },
  NotClaimer: { code: "Forbidden", message: "only the claimer may release task '{taskId}'" },
  AssignedToOther: { code: "Forbidden", message: "task '{taskId}' is assigned to another user" },
  NotHolder: {
    code: "Forbidden",
    message: "'{actorId}' does not hold task '{taskId}': only its assignee or claimer delegates it",
  },
  NotDelegate: {
    code: "Forbidden",
    message: "'{actorId}' is not the delegate of task '{taskId}'",
  },
  MayNotReassign: {
    code: "Forbidden",
    message: "'{actorId}' may not reassign task '{taskId}': its holder, owner or assigner may",
  },
  ExcludedFromTask: {
    code: "Forbidden",
    message: "'{actorId}' may not complete or claim task '{taskId}': {why}",
  },
  ClaimedByOther: { code: "Forbidden", message: "task '{taskId}' is claimed by another user" },
  CsrfTokenMissing: {
    code: "Forbidden",
    message: "a Console request that changes something needs the X-CSRF-Token header",
  },
  CsrfTokenMismatch: { code: "Forbidden", message: "{detail}" },
  OriginRejected: { code: "Forbidden", message: "{detail}" },
  RoleRequired: { code: "Forbidden", message: "{route} needs the {role} role" },
  OperatorRequired: { code: "Forbidden", message: "{detail}" },
  GroupMembershipRequired: {
    code: "Forbidden",
    message: "only members of group '{groupId}' may read its tasks",
  },
  TrustedProxyRequired: {
    code: "Forbidden",
    message: "the {header} header is accepted only from the trusted proxies",
  },
  ProxyUserUnknown: {
    code: "Forbidden",
    message: "the user named by the trusted proxy is not in the directory",
  },
  TenantKeysOnly: { code: "Forbidden", message: "{detail}" },
  // ── 404 NotFound ─────────────────────────────────────────────────────────
  NotFound: { code: "NotFound", message: "{detail}" },
  RouteNotFound: { code: "NotFound", message: "{detail}" },
  TaskNotFound: { code: "NotFound", message: "task '{taskId}' was not found" },
  InstanceNotFound: { code: "NotFound", message: "instance '{instanceId}' was not found" },
  RootInstanceNotFound: {
    code: "NotFound",
    message: "root instance of the run '{instanceId}' was not found",
  },
  DefinitionNotFound: { code: "NotFound", message: "definition '{key}' was not found" },
  DraftNotFound: { code: "NotFound", message: "draft of definition '{key}' was not found" },
  VersionNotFound: {
    code: "NotFound",
    message: "version of definition '{key}@{version}' was not found",
  },
  NoPublishedVersion: { code: "NotFound", message: "{what} '{key}' was not found" },
  RunNotFound: { code: "NotFound", message: "run '{runId}' was not found" },
  WorkflowNotFound: { code: "NotFound", message: "{detail}" },
  ApiKeyNotFound: { code: "NotFound", message: "{what} '{keyId}' was not found" },
  CacheMutationNotFound: {
    code: "NotFound",
    message: "cache mutation '{mutationId}' was not found",
  },
  // ── 405 MethodNotAllowed ─────────────────────────────────────────────────
  MethodNotAllowed: { code: "MethodNotAllowed", message: "{detail}" },
  // ── 409 NotOpen: the task is past this transition ────────────────────────
  NotOpen: { code: "NotOpen", message: "{detail}" },
  TaskNotOpen: { code: "NotOpen", message: "task '{taskId}' is {status}, not open" },
  TaskAlreadyClaimed: { code: "NotOpen", message: "task '{taskId}' is claimed, not open" },
  TaskNoLongerOpen: { code: "NotOpen", message: "task '{taskId}' is no longer open" },
  TaskFinished: { code: "NotOpen", message: "task '{taskId}' is {status}" },
  TaskNotClaimedForRelease: {
    code: "NotOpen",
    message: "task '{taskId}' is {status}, not claimed",
  },
  TaskNoLongerClaimed: { code: "NotOpen", message: "task '{taskId}' is no longer claimed" },
  // ── 409 Conflict: the state of the process or run refuses it ─────────────
  Conflict: { code: "Conflict", message: "{detail}" },
  RootClosed: { code: "Conflict", message: "process '{rootInstanceId}' is already completed" },
  DraftChanged: {
    code: "Conflict",
    message: "the draft of '{key}' changed while it was being published; publish again",
  },
  DelegationPending: {
    code: "Conflict",
    message:
      "task '{taskId}' is delegated to '{delegate}': they resolve it, then its owner completes it",
  },
  NotDelegated: { code: "Conflict", message: "task '{taskId}' is not delegated" },
  TaskNotClaimed: {
    code: "Conflict",
    message: "group task '{taskId}' must be claimed before it is completed",
  },
  InstanceChanging: { code: "Conflict", message: "instance '{instanceId}' is changing; retry" },
  VersionRetracted: {
    code: "Conflict",
    message: "version {version} of '{key}' is retracted: no new run starts on it",
  },
  VarsSchemaUnrunnable: {
    code: "Conflict",
    message:
      "version {version} of '{key}' has a vars schema the engine cannot run ({why}): publish a version that passes validation",
  },
  FormUncheckable: {
    code: "Conflict",
    message: "the task's form cannot be checked ({why}); cancel the run or its task",
  },
  RunFinished: { code: "Conflict", message: "run '{runId}' has finished" },
  TooManyPendingSignals: {
    code: "Conflict",
    message:
      "run '{runId}' already holds {cap} signals it has not consumed (WF_RUN_MAX_PENDING_SIGNALS): send again once it has taken some",
  },
  HistoryFull: {
    code: "Conflict",
    message:
      "run '{runId}' would pass {cap} events in its history (WF_RUN_MAX_HISTORY), counting the signals it has not consumed: the workflow can continueAsNew to start a new generation",
  },
  WorkflowRegisteredTwice: { code: "Conflict", message: "workflow '{name}' is registered twice" },
  DatabaseInUse: { code: "Conflict", message: "{detail}" },
  // ── 409 InProgress, 422 Unprocessable: Idempotency-Key ───────────────────
  InProgress: { code: "InProgress", message: "{detail}" },
  RequestInProgress: {
    code: "InProgress",
    message:
      "a request with this Idempotency-Key is still in progress; retry after it has finished",
  },
  Unprocessable: { code: "Unprocessable", message: "{detail}" },
  IdempotencyKeyReused: {
    code: "Unprocessable",
    message:
      "this Idempotency-Key was already used with a different request (method, path, actor or body); use a new key",
  },
  // ── 413 TooLarge ─────────────────────────────────────────────────────────
  TooLarge: { code: "TooLarge", message: "{detail}" },
  BodyTooLarge: { code: "TooLarge", message: "{detail}" },
  HeadersTooLarge: {
    code: "TooLarge",
    message: "the request headers are larger than the server accepts",
  },
  ValueTooCostly: {
    code: "TooLarge",
    message:
      "{what} are too large to check against their schema: checking them costs more than the {maxWork} units of work allowed (each value node counts 1 plus the subschemas and keywords that apply at its depth); send a smaller value or simplify the schema",
  },
  SignalTooLarge: {
    code: "TooLarge",
    message:
      "the signal's payload is {bytes} bytes; a signal carries at most {max} (WF_SIGNAL_MAX_BYTES): store large data elsewhere and signal its reference",
  },
  // ── 415 UnsupportedMediaType ─────────────────────────────────────────────
  UnsupportedMediaType: { code: "UnsupportedMediaType", message: "{detail}" },
  // ── 429 RateLimited: retry later ─────────────────────────────────────────
  RateLimited: { code: "RateLimited", message: "{detail}" },
  RateLimitExceeded: {
    code: "RateLimited",
    message: "rate limit of {budget} per API key and tenant exceeded; retry after {seconds} s",
  },
  TooManyLoginAttempts: {
    code: "RateLimited",
    message: "too many login attempts; try again later",
  },
  TooManyCodes: {
    code: "RateLimited",
    message: "too many codes issued for this subject; retry after {seconds} s",
  },
  TooManyStreams: { code: "RateLimited", message: "{detail}" },
  // ── 500 Internal, 503 Unavailable ────────────────────────────────────────
  Internal: { code: "Internal", message: "{detail}" },
  UnexpectedError: {
    code: "Internal",
    message: "unexpected error; see the server log for request {requestId}",
  },
  Unavailable: { code: "Unavailable", message: "{detail}" },
  BackendUnreachable: { code: "Unavailable", message: "{detail}" },
  ShuttingDown: { code: "Unavailable", message: "this node is shutting down; retry on another" },
  Overloaded: { code: "Unavailable", message: "{detail}" },
  NotReady: { code: "Unavailable", message: "{detail}" },
} as const satisfies Record<string, ReasonEntry>;

export type ErrorReason = keyof typeof ERROR_REASONS;

/** Every reason, in catalogue order. */
export const ErrorReasons = Object.keys(ERROR_REASONS) as ErrorReason[];

/** The reasons the engine raises as a TaskflowError: those whose code is in error-codes.ts's catalogue. */
export type EngineReason = {
  [R in ErrorReason]: (typeof ERROR_REASONS)[R]["code"] extends ErrorCode ? R : never;
}[ErrorReason];

type ParamNames<T extends string> = T extends `${string}{${infer P}}${infer Rest}`
  ? P | ParamNames<Rest>
  : never;

/** The named parameters of a reason's message, e.g. `{ taskId }` for `TaskNotClaimed`. */
export type ReasonParams<R extends ErrorReason> = {
  readonly [K in ParamNames<(typeof ERROR_REASONS)[R]["message"]>]: string | number;
};

export const codeOfReason = <R extends ErrorReason>(reason: R): (typeof ERROR_REASONS)[R]["code"] =>
  ERROR_REASONS[reason].code;

/** The reason's message with its parameters filled in. */
export function reasonMessage<R extends ErrorReason>(reason: R, params: ReasonParams<R>): string {
  const values = params as Readonly<Record<string, string | number>>;
  return ERROR_REASONS[reason].message.replace(/\{(\w+)\}/g, (_, name: string) =>
    String(values[name]),
  );
}
