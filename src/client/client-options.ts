/** How a TaskflowClient reaches the server. */

/** The `fetch` the client calls; the global one by default (Node 20+). */
export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;

export interface TaskflowClientOptions {
  /** The server's base URL, e.g. `http://taskflow.internal:8081` (a path prefix is kept). */
  baseUrl: string;
  /**
   * The API key sent as `X-API-Key`. Absent (or `null`) means none: only a
   * development server without keys accepts that, and any other answers 401
   * `Unauthorized`. Never part of an error message.
   */
  apiKey?: string | null | undefined;
  /** `X-Tenant-Id` for every call; default none, which the server reads as `default`. */
  tenantId?: string;
  /** Default `globalThis.fetch`. */
  fetch?: FetchFn;
  /** Per-request timeout, including reading the body; default 10,000 ms. */
  timeoutMs?: number;
  /**
   * Extra headers for every call (e.g. `X-Request-Id`). They cannot replace the
   * client's own `X-API-Key`, `X-Actor-Id`, `X-Tenant-Id` or `Content-Type`.
   */
  headers?: Record<string, string>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
