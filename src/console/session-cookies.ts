/**
 * The Console's three cookies and their flags.
 *
 * - tf_session: the short-lived session token. HttpOnly: no script reads it.
 * - tf_refresh: the login's refresh token, rotated on every refresh. HttpOnly.
 * - tf_csrf: the login's CSRF token. Not HttpOnly on purpose: the page reads
 *   it and echoes it in X-CSRF-Token (double submit); a page of another site
 *   can neither read it nor set the header.
 *
 * All three: Path=/console (never sent to the engine's /v1), SameSite=Lax (not
 * sent on another site's subrequests or POSTs), Secure outside development
 * (development runs on http://127.0.0.1, where browsers drop Secure cookies).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { parseCookies, serializeCookie, type CookieOptions } from "./cookies.ts";

export const SESSION_COOKIE = "tf_session";
export const REFRESH_COOKIE = "tf_refresh";
export const CSRF_COOKIE = "tf_csrf";
export const COOKIE_PATH = "/console";

export interface IssuedLogin {
  session: string;
  refresh: string;
  csrf: string;
  sessionTtlMs: number;
  refreshTtlMs: number;
}

export interface ConsoleCookies {
  read(req: FastifyRequest): { session?: string; refresh?: string; csrf?: string };
  set(reply: FastifyReply, login: IssuedLogin): void;
  clear(reply: FastifyReply): void;
}

export function consoleCookies(secure: boolean): ConsoleCookies {
  const options = (httpOnly: boolean, ttlMs: number): CookieOptions => ({
    path: COOKIE_PATH,
    httpOnly,
    secure,
    sameSite: "Lax",
    maxAgeSeconds: Math.floor(ttlMs / 1000),
  });
  return {
    read(req) {
      const all = parseCookies(req.headers.cookie);
      const pick = (name: string) => {
        const v = all.get(name);
        return v === undefined || v === "" ? {} : { [nameKey(name)]: v };
      };
      return { ...pick(SESSION_COOKIE), ...pick(REFRESH_COOKIE), ...pick(CSRF_COOKIE) };
    },
    set(reply, login) {
      void reply.header("set-cookie", [
        serializeCookie(SESSION_COOKIE, login.session, options(true, login.sessionTtlMs)),
        serializeCookie(REFRESH_COOKIE, login.refresh, options(true, login.refreshTtlMs)),
        // As long as the login: the page needs it to refresh an expired session.
        serializeCookie(CSRF_COOKIE, login.csrf, options(false, login.refreshTtlMs)),
      ]);
    },
    clear(reply) {
      void reply.header("set-cookie", [
        serializeCookie(SESSION_COOKIE, "", options(true, 0)),
        serializeCookie(REFRESH_COOKIE, "", options(true, 0)),
        serializeCookie(CSRF_COOKIE, "", options(false, 0)),
      ]);
    },
  };
}

function nameKey(name: string): "session" | "refresh" | "csrf" {
  if (name === SESSION_COOKIE) return "session";
  return name === REFRESH_COOKIE ? "refresh" : "csrf";
}
