/**
 * Headers on every Console response, errors included. The policy allows only
 * the Console's own scripts, styles and API (no inline code, no third party),
 * no framing (clickjacking) and no form posts elsewhere; data: images are for
 * icons a build inlines.
 */
import type { FastifyReply, FastifyRequest } from "fastify";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join("; ");

const HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  // Answers carry personal data and session state: never kept by a shared cache.
  "cache-control": "no-store",
};

/** onRequest hook: set first, so an error answer keeps them too. */
export function setSecurityHeaders(
  _req: FastifyRequest,
  reply: FastifyReply,
  done: () => void,
): void {
  void reply.headers(HEADERS);
  done();
}
