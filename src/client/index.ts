/** `taskflow/client`: the typed HTTP client for host backends (BFF). */
export { TaskflowClient } from "./taskflow-client.ts";
export { ActingClient } from "./acting-client.ts";
export { TaskflowReader } from "./taskflow-reader.ts";
export type { FetchFn, TaskflowClientOptions } from "./client-options.ts";
export { DEFAULT_TIMEOUT_MS } from "./client-options.ts";
export { TaskflowHttpError, isTaskflowHttpError } from "./http-problem-error.ts";
export { ProblemReasons, type ProblemReason } from "./problem-reasons.ts";
export {
  TaskflowRequestError,
  isTaskflowRequestError,
  type RequestErrorKind,
} from "./request-error.ts";
export { items, pages, type PageFetcher } from "./paging.ts";
export * from "./client-types.ts";
