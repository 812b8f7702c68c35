/**
 * Load shedding for the /v1 scope: past a limit, a request is answered at once
 * with 503 `Unavailable` and `Retry-After` instead of joining a queue that
 * grows without bound. /healthz, /readyz, /openapi.json and /docs live outside
 * the scope and are never shed: a load balancer must see a busy node alive.
 *
 * Two limits, both configurable (0 turns one off):
 * - event-loop delay (`maxEventLoopDelay`, ms): @fastify/under-pressure samples
 *   the mean delay every second. Past it, every callback — a new connection's
 *   accept included — already waits that long, so more work only makes it worse.
 * - requests in flight (`maxInFlight`): counted here, because under-pressure
 *   measures the process (delay, utilisation, memory) but not the queue. On
 *   PostgreSQL or MariaDB the requests wait for a pooled connection while the
 *   loop is idle: the delay stays low and the queue, with everyone's latency,
 *   grows; only a count sees that at once, on the request that crosses it.
 *
 * Event-loop utilisation is not a limit: a saturated but healthy node runs
 * near 1.0 and would shed what it can still serve.
 *
 * The hooks run before the API-key check: a shed request costs the least a
 * request can (no key digest, no body parsing), which is the point when the
 * node is overloaded.
 */
import underPressure from "@fastify/under-pressure";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { TaskflowConfig } from "../../config/config.ts";
import { problem, sendProblem } from "../errors/error-mapping.ts";

export type LoadSheddingSettings = Pick<TaskflowConfig, "maxInFlight" | "maxEventLoopDelay">;

/**
 * Whole seconds. Overload passes in well under a second once callers back off
 * (the delay is re-sampled every second), so a caller retries soon — on this
 * node or, through the load balancer, on another.
 */
export const RETRY_AFTER_SECONDS = 1;

/** Adds both limits to `scope` (the /v1 scope); nothing when both are off. */
export async function installLoadShedding(
  scope: FastifyInstance,
  settings: LoadSheddingSettings,
): Promise<void> {
  if (settings.maxEventLoopDelay > 0) {
    // fastify-plugin: the hook lands in `scope`, so routes outside it are not shed.
    await scope.register(underPressure, {
      maxEventLoopDelay: settings.maxEventLoopDelay,
      // Sending here ends the request (under-pressure's documented use).
      pressureHandler: (_req, reply, _type, value) => {
        // Infinity is under-pressure's "no sample in the last interval": the loop was
        // blocked for all of it (start-up compiling schemas and migrating, or one long
        // stall) and is running again, since this request is being handled. There is no
        // queue behind it to protect, and shedding for the next second only turned the
        // first requests after start into 503s. Returning nothing lets the request on.
        const ms = Number(value);
        if (!Number.isFinite(ms)) return;
        shed(
          reply,
          `the event loop is ${Math.round(ms)} ms behind (limit ${settings.maxEventLoopDelay} ms)`,
        );
      },
    });
  }
  if (settings.maxInFlight > 0) limitInFlight(scope, settings.maxInFlight);
}

function limitInFlight(scope: FastifyInstance, max: number): void {
  let inFlight = 0;
  const done = () => inFlight--;
  // Callback style: no promise per request on the hot path.
  scope.addHook("onRequest", (_req, reply, next) => {
    if (inFlight >= max) {
      // Replying without calling next() ends the request here.
      shed(reply, `${max} requests are in flight on this node`);
      return;
    }
    inFlight++;
    // 'close' fires once per response, after it is sent or when the client went
    // away first; onResponse would miss the latter and the count would leak. Node
    // emits it at most once (ServerResponse._closed), so `on` is enough: `once`
    // would wrap the listener in a bound function on every request.
    reply.raw.on("close", done);
    next();
  });
}

function shed(reply: FastifyReply, why: string): void {
  void sendProblem(
    reply.header("retry-after", String(RETRY_AFTER_SECONDS)),
    problem("Unavailable", `${why}; retry after ${RETRY_AFTER_SECONDS} s`, "Overloaded"),
  );
}
