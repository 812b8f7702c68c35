/**
 * The one cookie this app sets, and reading it back. A cookie plugin would do;
 * two functions are all a single fixed-flag cookie needs.
 */

export const SESSION_COOKIE = "et_session";

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * HttpOnly: no script reads it (the page gets the CSRF token instead);
 * SameSite=Lax: another site's form post does not carry it; Secure when the
 * app is served over HTTPS (behind a proxy in a real deployment).
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    `Max-Age=${maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
