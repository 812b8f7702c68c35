/**
 * HTTP/1.1 requires a Host header (RFC 9112 §3.2: a server MUST answer 400
 * without one). Node enforces that itself by writing a bare 400 with an empty
 * body, so the server turns Node's check off (`requireHostHeader: false`) and
 * makes it here instead, answering with the same status as a problem document.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";

export function requireHostHeader(
  req: FastifyRequest,
  _reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  const { httpVersionMajor, httpVersionMinor, headers } = req.raw;
  const http11 = httpVersionMajor === 1 && httpVersionMinor === 1;
  done(http11 && headers.host === undefined ? taskflowError("HostHeaderMissing") : undefined);
}
