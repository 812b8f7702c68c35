/**
 * The page's only way to the server: JSON over /api with the session cookie,
 * which scripts cannot read (HttpOnly). Mutations carry the session's CSRF
 * token, which the server hands the page at login and on /api/session.
 */

export interface User {
  id: string;
  name: string;
  company: string;
  role: "hr" | "it" | "finance" | "manager";
}

export interface SessionInfo {
  user: User;
  csrfToken: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string | undefined,
  ) {
    super(detail ?? code);
  }
}

let csrfToken = "";
let onSignedOut: () => void = () => undefined;

/** Called when the server no longer knows the session (expired, or ended elsewhere). */
export const whenSignedOut = (callback: () => void): void => {
  onSignedOut = callback;
};

export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

export async function api<T>(path: string, method = "GET", body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  const r = await fetch(`/api${path}`, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    credentials: "same-origin",
  });
  if (r.status === 204) return undefined as T;
  const json = (await r.json().catch(() => ({}))) as { error?: string; detail?: string };
  if (r.status === 401 && path !== "/session") onSignedOut();
  if (!r.ok) throw new ApiError(r.status, json.error ?? String(r.status), json.detail);
  return json as T;
}

export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
