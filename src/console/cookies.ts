/**
 * Reading the Cookie header and writing Set-Cookie values (RFC 6265). The
 * Console needs three cookies with fixed flags, nothing more, so two small
 * functions stand in for a cookie plugin the project does not depend on.
 *
 * Values are the Console's own (base64url tokens), so no encoding is applied:
 * a value outside the cookie-octet set is refused when writing, and a cookie
 * whose value is quoted or malformed is ignored when reading.
 */

/** RFC 6265 cookie-octet: visible ASCII except space, " , ; and \. */
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;
/** RFC 9110 token. */
const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/** Past this, a Cookie header is not the Console's (browsers cap at about 4 kB per cookie). */
const MAX_HEADER_LENGTH = 16 * 1024;

/** name → value of every well-formed cookie; the first of a repeated name wins (the most specific path). */
export function parseCookies(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const text = Array.isArray(header) ? header.join("; ") : header;
  if (text === undefined || text.length > MAX_HEADER_LENGTH) return out;
  for (const pair of text.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!COOKIE_NAME.test(name) || !COOKIE_VALUE.test(value) || out.has(name)) continue;
    out.set(name, value);
  }
  return out;
}

export interface CookieOptions {
  path: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "Lax" | "Strict";
  /** Seconds; 0 deletes the cookie. */
  maxAgeSeconds: number;
}

export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  if (!COOKIE_NAME.test(name)) throw new Error(`bad cookie name ${JSON.stringify(name)}`);
  if (!COOKIE_VALUE.test(value)) throw new Error(`bad value for cookie ${name}`);
  if (!Number.isInteger(o.maxAgeSeconds) || o.maxAgeSeconds < 0) {
    throw new Error(`bad Max-Age for cookie ${name}`);
  }
  const parts = [`${name}=${value}`, `Path=${o.path}`, `Max-Age=${o.maxAgeSeconds}`];
  if (o.maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (o.httpOnly) parts.push("HttpOnly");
  if (o.secure) parts.push("Secure");
  parts.push(`SameSite=${o.sameSite}`);
  return parts.join("; ");
}
