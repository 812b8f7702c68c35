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

/** Needs `return503OnClosing: false` on the Fastify instance, or Fastify answers first. */
export function installClosingGuard(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
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
