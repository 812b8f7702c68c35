/**
 * Console logins on top of the coordination's opaque tokens.
 *
 * A login is a refresh token (purpose console-refresh, hours) whose family is
 * the chain of tokens its refreshes rotate through, plus a session token
 * (console-session, minutes) issued with it and on every refresh. Both travel
 * as cookies on every Console request, and a request is authenticated only
 * when both are live and belong together (same user, the session names the
 * refresh token's family). That makes revoking the family — logout, or the
 * port's reuse detection when a rotated refresh token is presented again —
 * end every session of that login at once, not when the session expires.
 *
 * The CSRF token is per login: its SHA-256 is kept in both tokens' data, the
 * token itself only in the tf_csrf cookie the page echoes.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { OpaqueTokens, TokenInfo } from "../engine/index.ts";
import type { IssuedLogin } from "./session-cookies.ts";

export const SESSION_PURPOSE = "console-session";
export const REFRESH_PURPOSE = "console-refresh";

export interface ConsoleSession {
  userId: string;
  /** The login's refresh family: what logout revokes. */
  familyId: string;
  /** The session token's id (safe to log). */
  sessionId: string;
  csrfHash: string;
}

export type RefreshOutcome =
  | { outcome: "refreshed"; userId: string; login: IssuedLogin }
  /** The refresh token was rotated before: its whole family is revoked now. */
  | { outcome: "reused" }
  | { outcome: "invalid" }
  /** The CSRF token is not this login's: nothing was changed. */
  | { outcome: "csrf" };

export interface SessionLifetimes {
  sessionTtlMs: number;
  refreshTtlMs: number;
}

export const hashCsrf = (csrf: string): string =>
  createHash("sha256").update(csrf).digest("base64url");

/** Constant-time comparison of two CSRF values (or their hashes). */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash("sha256").update(a).digest();
  const y = createHash("sha256").update(b).digest();
  return timingSafeEqual(x, y);
}

export class ConsoleSessions {
  constructor(
    private readonly tokens: OpaqueTokens,
    private readonly tenant: string,
    private readonly lifetimes: SessionLifetimes,
  ) {}

  /** A new login for a user the caller has identified (a code, a trusted header). */
  async login(userId: string): Promise<{ login: IssuedLogin; session: ConsoleSession }> {
    const csrf = randomBytes(32).toString("base64url");
    const csrfHash = hashCsrf(csrf);
    const refresh = await this.tokens.issue(this.tenant, {
      purpose: REFRESH_PURPOSE,
      subject: userId,
      ttlMs: this.lifetimes.refreshTtlMs,
      data: { csrf: csrfHash },
    });
    const session = await this.issueSession(userId, refresh.familyId, csrfHash);
    return {
      login: { session: session.token, refresh: refresh.token, csrf, ...this.lifetimes },
      session: { userId, familyId: refresh.familyId, sessionId: session.id, csrfHash },
    };
  }

  /** The session both cookies prove, or null. */
  async authenticate(
    session: string | undefined,
    refresh: string | undefined,
  ): Promise<ConsoleSession | null> {
    if (session === undefined || refresh === undefined) return null;
    const [s, r] = await Promise.all([
      this.tokens.verify(this.tenant, SESSION_PURPOSE, session),
      this.tokens.verify(this.tenant, REFRESH_PURPOSE, refresh),
    ]);
    if (s === null || r === null) return null;
    if (s.subject !== r.subject || s.data.family !== r.familyId) return null;
    const csrfHash = s.data.csrf;
    if (typeof csrfHash !== "string") return null;
    return { userId: s.subject, familyId: r.familyId, sessionId: s.id, csrfHash };
  }

  /**
   * Rotates the refresh token and issues a new session. A token that was
   * already rotated revokes its family (the port does that) and answers reused.
   */
  async refresh(refresh: string, csrf: string, oldSession?: string): Promise<RefreshOutcome> {
    const live = await this.tokens.verify(this.tenant, REFRESH_PURPOSE, refresh);
    // Checked before rotating, so a refused request changes nothing.
    if (live !== null && !csrfMatches(live, csrf)) return { outcome: "csrf" };
    const r = await this.tokens.rotate(this.tenant, REFRESH_PURPOSE, refresh);
    if (r.outcome !== "rotated") return { outcome: r.outcome };
    const { next } = r;
    const csrfHash = typeof next.data.csrf === "string" ? next.data.csrf : "";
    if (oldSession !== undefined)
      await this.tokens.revoke(this.tenant, SESSION_PURPOSE, oldSession);
    const session = await this.issueSession(next.subject, next.familyId, csrfHash);
    return {
      outcome: "refreshed",
      userId: next.subject,
      login: { session: session.token, refresh: next.token, csrf, ...this.lifetimes },
    };
  }

  /** Ends the login the cookies belong to (either cookie is enough); true when something was revoked. */
  async logout(refresh: string | undefined, session: string | undefined): Promise<boolean> {
    let family: string | undefined;
    if (refresh !== undefined) {
      family = (await this.tokens.verify(this.tenant, REFRESH_PURPOSE, refresh))?.familyId;
    }
    if (family === undefined && session !== undefined) {
      const s = await this.tokens.verify(this.tenant, SESSION_PURPOSE, session);
      family = typeof s?.data.family === "string" ? s.data.family : undefined;
    }
    const revoked = family === undefined ? 0 : await this.tokens.revokeFamily(this.tenant, family);
    const own =
      session !== undefined && (await this.tokens.revoke(this.tenant, SESSION_PURPOSE, session));
    return revoked > 0 || own;
  }

  private issueSession(userId: string, familyId: string, csrfHash: string) {
    return this.tokens.issue(this.tenant, {
      purpose: SESSION_PURPOSE,
      subject: userId,
      ttlMs: this.lifetimes.sessionTtlMs,
      data: { family: familyId, csrf: csrfHash },
    });
  }
}

function csrfMatches(info: TokenInfo, csrf: string): boolean {
  const stored = info.data.csrf;
  return typeof stored === "string" && sameSecret(stored, hashCsrf(csrf));
}
