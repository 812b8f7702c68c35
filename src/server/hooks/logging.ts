/**
 * Logging: pino with the API key redacted wherever a serializer might put
 * request headers, request ids that follow a call across services, and one
 * line per request.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import { pino, type DestinationStream, type Logger } from "pino";
import type { TaskflowConfig } from "../../config/config.ts";

export const REQUEST_ID_HEADER = "x-request-id";
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's default request serializer logs method, url, host and remote
 * address only; these paths cover any serializer or log call that includes
 * headers. Header names reach Node lower-cased, so one spelling suffices.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'request.headers["x-api-key"]',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
];

const redact = { paths: REDACTED_PATHS, censor: "[redacted]" };

export function createLogger(
  config: Pick<TaskflowConfig, "logLevel">,
  destination?: DestinationStream,
): Logger {
  return pino({ level: config.logLevel, redact }, destination);
}

/** A caller's own logger gets the same redaction through a child. */
export const withRedaction = (logger: Logger): Logger => logger.child({}, { redact });

/** Honour a well-formed incoming X-Request-Id so logs correlate with the caller's; else a UUID. */
export function genReqId(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * One line per request at info, when it completes: method, url, remote address
 * and port (Fastify's request serializer, which logs no headers), status code
 * and response time. Fastify's default writes two, "incoming request" and
 * "request completed", which at 1,000+ requests/s cost 5–20 % of the server's
 * CPU (docs/benchmarks.md, REST cycle against its ceiling). Errors, refusals
 * and everything else Fastify logs are unchanged.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    // A refusal left out of the log (refusal-log.ts) is left out here too.
    if (this.isLogDisabled(request) || request.quietLog === true) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, "request errored");
    else reply.log.info(fields, "request completed");
  }
}
