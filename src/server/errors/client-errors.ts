/**
 * Answers for requests Node's HTTP parser cannot read (a malformed request
 * line, headers over Node's 16 KiB limit) and for `CONNECT`, which never
 * reaches Fastify. They come in on a raw socket, so the problem document is
 * written on it by hand; like every other error it is problem+json and never
 * echoes the request. The socket is closed once the answer is flushed: after
 * a parse error the rest of the byte stream cannot be trusted.
 */
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import { PROBLEM_CONTENT_TYPE, reasonProblem, type Problem } from "./error-mapping.ts";

interface ClientError extends Error {
  code?: string;
}

/**
 * Header overflow keeps Node's 431 (clients and proxies know it) under the
 * code TooLarge; a request Node gave up waiting for keeps 408. Everything
 * else the parser refuses is a malformed request: 400 Validation.
 */
export function clientErrorProblem(err: ClientError): Problem {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        ...reasonProblem("HeadersTooLarge", {}),
        title: STATUS_CODES[431]!,
        status: 431,
      };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        ...reasonProblem("RequestTimeout", {}),
        title: STATUS_CODES[408]!,
        status: 408,
      };
    default:
      return reasonProblem("MalformedHttp", {});
  }
}

/** The whole response, as bytes on the wire. */
export function rawProblemResponse(p: Problem): string {
  const body = JSON.stringify(p);
  return (
    `HTTP/1.1 ${p.status} ${STATUS_CODES[p.status] ?? "Error"}\r\n` +
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** Writes the answer unless a response is already on its way on this socket, then closes. */
function answerAndClose(socket: Duplex, p: Problem): void {
  // A response of an earlier pipelined request half written: a second status line would corrupt it.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(rawProblemResponse(p), () => socket.destroy());
}

/** Fastify's clientErrorHandler option; `this` is the Fastify instance. */
export function answerClientError(this: FastifyInstance, err: ClientError, socket: Duplex): void {
  // The peer is gone: nobody to answer.
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const p = clientErrorProblem(err);
  this.log.info({ code: p.code, parserError: err.code }, "malformed request refused");
  answerAndClose(socket, p);
}

/**
 * Node hands CONNECT to the server's 'connect' event and, with no listener,
 * destroys the socket without a word. This is not a proxy: say so.
 */
export function refuseConnect(server: FastifyInstance["server"], log: FastifyInstance["log"]) {
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    log.info({ code: "Validation" }, "CONNECT refused");
    answerAndClose(socket, reasonProblem("ProxyRequest", {}));
  });
}
