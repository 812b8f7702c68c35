/**
 * The page's only way to the server: JSON over /console/api with the session cookies.
 * The API key never reaches the browser; the Console's server adds it.
 *
 * Every mutation carries the login's CSRF token (X-CSRF-Token). A 401 means the short
 * session expired: the page refreshes once (the refresh token rotates) and retries; two
 * tabs must not refresh at the same moment, since a rotated refresh token presented again
 * ends the whole login, so refreshes take a Web Lock.
 */

/** An RFC 9457 problem from the server, with the JSON pointers of invalid fields. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    /** JSON pointer → message, from the problem's `errors`. */
    readonly fields: ReadonlyMap<string, string>,
    readonly body: unknown,
  ) {
    super(detail ?? title);
  }
}

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
  const p = (body ?? {}) as {
    title?: string;
    detail?: string;
    errors?: { pointer?: string; reason?: string }[];
  };
  const fields = new Map<string, string>();
  for (const e of p.errors ?? []) {
    if (e.pointer !== undefined) fields.set(e.pointer, e.reason ?? "invalid");
  }
  return new ApiProblem(r.status, p.title ?? r.statusText, p.detail, fields, body);
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
