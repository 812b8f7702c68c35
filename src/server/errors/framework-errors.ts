/**
 * Errors Fastify raises while routing, before any hook runs (so before the API
 * key check): a path that is not valid percent-encoded UTF-8 (FST_ERR_BAD_URL)
 * and a path segment longer than the router's maxParamLength
 * (FST_ERR_MAX_PARAM_LENGTH). Fastify's own answers are plain JSON echoing the
 * whole path (a 10 KB id came back in full) with a 414 for the long one; here
 * both are `400 Validation` problem documents that echo nothing, as the API
 * documents for a bad or over-long id.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { problem, sendProblem, reasonProblem } from "./error-mapping.ts";
import { MAX_ID_LENGTH } from "../../domain/limits.ts";
import { REQUEST_ID_HEADER } from "../hooks/logging.ts";

const DETAIL: Partial<Record<string, string>> = {
  FST_ERR_BAD_URL: "the request path is not valid percent-encoded UTF-8",
  FST_ERR_MAX_PARAM_LENGTH: `an id in the request path is longer than ${MAX_ID_LENGTH} characters`,
};

export function answerFrameworkError(
  err: FastifyError,
  req: FastifyRequest,
  reply: FastifyReply,
): void {
  void reply.header(REQUEST_ID_HEADER, req.id);
  const detail = DETAIL[err.code];
  if (detail === undefined) {
    // FST_ERR_ASYNC_CONSTRAINT: no route here has an async constraint, so this is a bug.
    req.log.error({ err }, "unexpected routing error");
    void sendProblem(reply, reasonProblem("UnexpectedError", { requestId: req.id }));
    return;
  }
  req.log.info({ code: "Validation", detail }, "request refused");
  void sendProblem(reply, problem("Validation", detail, "MalformedPath"));
}
