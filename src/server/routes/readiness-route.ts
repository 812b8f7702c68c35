/**
 * Readiness for load balancers and orchestrators: `GET /readyz` is 200 while
 * every configured backend answers, 503 problem+json (with Retry-After) while
 * one does not. No key, like /healthz. Liveness stays /healthz, which touches
 * no backend: a node whose database is down is alive (restarting it would not
 * help) but should get no traffic.
 *
 * Each check is bounded by CHECK_TIMEOUT_MS, so a black-holed database makes
 * /readyz answer 503 in time instead of hanging like the check does. At most
 * one round of each check is in flight: while one hangs, later probes wait on
 * it instead of each taking another pooled connection (a load balancer probing
 * every second would otherwise empty a pool of 10 in 10 s), unless it is stale.
 */
import type { FastifyInstance } from "fastify";
import { isUnavailable } from "../../domain/unavailable.ts";
import {
  PROBLEM_CONTENT_TYPE,
  problem,
  UNAVAILABLE_RETRY_AFTER_S,
} from "../errors/error-mapping.ts";
import { errorResponses, jsonResponse } from "../openapi/openapi-responses.ts";

/** A named round trip to a backend; resolves when it answered. */
export type ReadinessChecks = Readonly<Record<string, () => Promise<void>>>;

/**
 * Under the 2 s a load balancer's probe commonly allows (and far above a
 * `select 1`, ~0.1 ms on a healthy local database), so a slow-but-alive
 * database still passes and a dead one fails before the prober gives up.
 */
export const CHECK_TIMEOUT_MS = 1_500;

/**
 * A check that knows why it is not ready without a backend to ask (a worker
 * whose claim loop stopped): its message is the outcome /readyz names.
 */
export class NotReady extends Error {}

/** "ok", or why not: "unavailable", "failing", "no answer within … ms". */
type Outcome = string;

/**
 * A round older than this is no longer waited on: a connection black-holed
 * mid-query can stay stuck for minutes after the network heals (TCP
 * retransmission backs off to ~2 min), and readiness must not report the old
 * outage that long. One new round per 10 s keeps the pool from emptying.
 */
const STALE_ROUND_MS = 10_000;

function singleFlight(check: () => Promise<void>): () => Promise<void> {
  let inFlight: { done: Promise<void>; since: number } | undefined;
  return () => {
    const now = Date.now();
    if (inFlight !== undefined && now - inFlight.since < STALE_ROUND_MS) return inFlight.done;
    const round = { done: Promise.resolve(), since: now };
    round.done = check().finally(() => {
      if (inFlight === round) inFlight = undefined;
    });
    inFlight = round;
    return round.done;
  };
}

async function outcomeOf(check: () => Promise<void>, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  const answer = check().then(
    (): Outcome => "ok",
    (e: unknown): Outcome =>
      e instanceof NotReady ? e.message : isUnavailable(e) ? "unavailable" : "failing",
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function readinessRoute(
  app: FastifyInstance,
  opts: { checks: ReadinessChecks; timeoutMs?: number },
  done: () => void,
) {
  const timeoutMs = opts.timeoutMs ?? CHECK_TIMEOUT_MS;
  const checks = Object.entries(opts.checks).map(([name, c]) => [name, singleFlight(c)] as const);
  app.get(
    "/readyz",
    {
      schema: {
        tags: ["health"],
        summary: "Readiness: every configured backend answers (503 problem while one does not)",
        description:
          "Checks each configured backend (the database) with a bounded round trip. While one " +
          "does not answer: 503 Unavailable with Retry-After, naming it. No API key.",
        security: [],
        response: {
          200: jsonResponse(
            "Every backend answered",
            {
              type: "object",
              required: ["status", "checks"],
              properties: {
                status: { type: "string" },
                checks: { type: "object", additionalProperties: { type: "string" } },
              },
            },
            { status: "ok", checks: { store: "ok" } },
          ),
          503: errorResponses(["Unavailable"])[503]!,
        },
      },
    },
    async (_req, reply) => {
      const outcomes = await Promise.all(
        checks.map(async ([name, c]) => [name, await outcomeOf(c, timeoutMs)] as const),
      );
      const down = outcomes.filter(([, o]) => o !== "ok");
      if (down.length === 0) return { status: "ok", checks: Object.fromEntries(outcomes) };
      const detail = `not ready: ${down.map(([name, o]) => `${name} ${o}`).join(", ")}`;
      return reply
        .code(503)
        .header("retry-after", String(UNAVAILABLE_RETRY_AFTER_S))
        .type(PROBLEM_CONTENT_TYPE)
        .send(problem("Unavailable", detail, "NotReady"));
    },
  );
  done();
}
