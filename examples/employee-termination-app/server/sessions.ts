/**
 * Logins kept in this process's memory: an opaque 256-bit token in an HttpOnly
 * cookie, of which only the SHA-256 is stored (a leaked memory dump holds no
 * usable token), and a CSRF token the page echoes on every mutation. A restart
 * logs everyone out, which a demo can afford; a product keeps them in its store.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

export interface Session {
  readonly userId: string;
  readonly csrfToken: string;
  readonly expiresAt: number;
}

const hash = (token: string) => createHash("sha256").update(token).digest("base64url");
const newToken = () => randomBytes(32).toString("base64url");

export class Sessions {
  private readonly byHash = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new login: the token goes into the cookie, the session's CSRF token to the page. */
  create(userId: string): { token: string; session: Session } {
    const token = newToken();
    const session = { userId, csrfToken: newToken(), expiresAt: this.now() + SESSION_TTL_MS };
    this.byHash.set(hash(token), session);
    return { token, session };
  }

  /** The live session of a cookie's token, or undefined (unknown, ended or expired). */
  find(token: string | undefined): Session | undefined {
    if (token === undefined) return undefined;
    const session = this.byHash.get(hash(token));
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.byHash.delete(hash(token));
      return undefined;
    }
    return session;
  }

  end(token: string | undefined): void {
    if (token !== undefined) this.byHash.delete(hash(token));
  }
}

/** Constant-time comparison of the header with the session's token. */
export function csrfMatches(session: Session, header: string | undefined): boolean {
  if (header === undefined) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(header);
  return a.length === b.length && timingSafeEqual(a, b);
}
