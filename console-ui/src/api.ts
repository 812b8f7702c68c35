/**
 * The page's only way to the server: JSON over /console/api with the session cookies.
 * The API key never reaches the browser; the Console's server adds it.
 *
 * Every mutation carries the login's CSRF token (X-CSRF-Token). A 401 means the short
 * session expired: the page refreshes once (the refresh token rotates) and retries; two
 * tabs must not refresh at the same moment, since a rotated refresh token presented again
 * ends the whole login, so refreshes take a Web Lock.
 */

import type { Problem, ProblemCode } from "./wire.ts";

/**
 * An RFC 9457 problem from the server, with the JSON pointers of invalid fields. Pages
 * branch on `code` (the engine's catalogue, e.g. `NotOpen`) and `reason` (the situation
 * within it), never on `detail`, which is for people. Both are undefined when the answer
 * carried no problem document (a proxy's 502 page) or the server sends no `reason`.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    /** JSON pointer → message, from the problem's `errors`. */
    readonly fields: ReadonlyMap<string, string>,
    readonly body: unknown,
    readonly code: ProblemCode | undefined = undefined,
    readonly reason: string | undefined = undefined,
  ) {
    super(detail ?? title);
  }
}

/** Whether `e` is a problem with this code: `isProblem(e, "NotFound")`. */
export const isProblem = (e: unknown, code: ProblemCode): e is ApiProblem =>
  e instanceof ApiProblem && e.code === code;

let csrfToken: string | null = null;
let onLoggedOut: () => void = () => undefined;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function whenLoggedOut(callback: () => void): void {
  onLoggedOut = callback;
}

function readCookie(name: string): string | null {
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}

const API = "/console/api";
const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Sent as Idempotency-Key; the Console scopes it to the user. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

async function send(path: string, o: RequestOptions): Promise<Response> {
  const method = o.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  if (MUTATIONS.has(method)) headers["x-csrf-token"] = csrfToken ?? readCookie("tf_csrf") ?? "";
  if (o.idempotencyKey !== undefined) headers["idempotency-key"] = o.idempotencyKey;
  return fetch(API + path, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    credentials: "same-origin",
    signal: o.signal ?? null,
  });
}

async function refreshOnce(): Promise<boolean> {
  const run = async () => {
    const r = await send("/auth/refresh", { method: "POST", body: {} });
    if (!r.ok) return false;
    const body = (await r.json()) as { csrfToken: string };
    setCsrfToken(body.csrfToken);
    return true;
  };
  return navigator.locks === undefined ? run() : navigator.locks.request("tf-refresh", run);
}

async function problemOf(r: Response): Promise<ApiProblem> {
  let body: unknown = null;
  try {
    body = await r.json();
  } catch {
    /* not JSON */
  }
  // Partial: a body that is not the server's problem (a proxy's page, the Console's own
  // answers) lacks some of it, and every field is read as maybe missing.
  const p = (body ?? {}) as Partial<Problem>;
  const fields = new Map<string, string>();
  for (const e of p.errors ?? []) {
    if (typeof e.pointer === "string") {
      fields.set(e.pointer, typeof e.reason === "string" ? e.reason : "invalid");
    }
  }
  const code = typeof p.code === "string" ? p.code : undefined;
  const reason = typeof p.reason === "string" ? p.reason : undefined;
  return new ApiProblem(r.status, p.title ?? r.statusText, p.detail, fields, body, code, reason);
}

/** JSON from the Console API; throws ApiProblem on any non-2xx answer. */
export async function api<T>(path: string, o: RequestOptions = {}): Promise<T> {
  let r = await send(path, o);
  if (r.status === 401 && !path.startsWith("/auth/")) {
    if (await refreshOnce()) r = await send(path, o);
    if (r.status === 401) onLoggedOut();
  }
  if (!r.ok) throw await problemOf(r);
  if (r.status === 204) return undefined as T;
  return (await r.json()) as T;
}

/** The engine's REST API (/v1/...) through the Console's proxy. */
export function engine<T>(path: string, o: RequestOptions = {}): Promise<T> {
  return api<T>(`/engine/${path.replace(/^\//, "")}`, o);
}
