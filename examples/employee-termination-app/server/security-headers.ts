/**
 * Headers on every answer, pages and API alike: only this app's own scripts,
 * styles and API (no inline code: the Vite build emits none), no framing, no
 * caching of answers that carry a user's tasks.
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
  "cache-control": "no-store",
};

export function setSecurityHeaders(_req: FastifyRequest, reply: FastifyReply, done: () => void) {
  void reply.headers(HEADERS);
  done();
}
