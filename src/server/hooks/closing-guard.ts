/**
 * Requests that reach a node after shutdown began get a 503 problem document.
 *
 * Why: `app.close()` stops listening and reaps idle keep-alive sockets, but a
 * request already pipelined, or arriving on a connection busy until then, is
 * still read. Fastify answers those with its own 503 body (`{"error": …}`),
 * which is not the problem+json every other error is; a client or load balancer
 * that parses `code` would choke on it. Same status, same meaning — retry on
 * another node — in the one error format.
 */
import type { FastifyInstance } from "fastify";
import { PROBLEM_CONTENT_TYPE, reasonProblem } from "../errors/error-mapping.ts";

/**
 * How often a closing server closes the connections that went idle since it
 * began to close. Node's `server.close()` closes the idle ones once; a
 * connection whose response was still being written then (a request in flight,
 * a live-events stream that preClose ends) goes idle a moment later and, kept
 * alive, would hold the close for the client's keep-alive time: the server
 * tells clients 72 s, and a node's close was seen taking 70 s now and then.
 */
const REAP_IDLE_MS = 50;

/** Needs `return503OnClosing: false` on the Fastify instance, or Fastify answers first. */
export function installClosingGuard(app: FastifyInstance): void {
  let closing = false;
  let reap: NodeJS.Timeout | undefined;
  app.addHook("preClose", (done) => {
    closing = true;
    reap = setInterval(() => app.server.closeIdleConnections(), REAP_IDLE_MS).unref();
    done();
  });
  // After the server closed (Fastify runs onClose hooks then).
  app.addHook("onClose", (_app, done) => {
    clearInterval(reap);
    done();
  });
  // Callback style: no promise per request on the hot path while open.
  app.addHook("onRequest", (_req, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    // Replying without calling done() ends the request here.
    void reply
      .code(503)
      .header("connection", "close")
      .header("retry-after", "1")
      .type(PROBLEM_CONTENT_TYPE)
      .send(reasonProblem("ShuttingDown", {}));
  });
}
