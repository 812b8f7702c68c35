/**
 * Idempotency-Key on every POST under /v1: a client that retries a mutating
 * request with the same key gets the first answer again instead of a second
 * effect (two processes started, a task completed twice).
 *
 * The record lives in the coordination's TTL cache, per tenant, API key (its
 * id) and key, so every node sharing the backend sees it:
 * - the first request claims the key with a "running" marker (setIfAbsent)
 *   holding the SHA-256 of the request (idempotency-key.ts), then runs;
 * - its answer replaces the marker (onSend, on the payload Fastify already
 *   serialised: nothing is rendered twice) and is kept RETAIN_MS; a repeat of
 *   the same request gets that status and body with `Idempotent-Replayed: true`;
 * - a repeat while the first still runs is 409 `InProgress`; the same key with
 *   another request is 422 `Unprocessable`.
 *
 * What is stored follows Stripe's API: a result is saved once the route
 * began executing, errors included (a 404 or 409 is the answer to that
 * request). A request refused before it ran (a bad body, header or key, over
 * the rate limit) reaches no handler and saves nothing: its retry is judged
 * afresh. Unlike Stripe (which keeps its 500s), a retryable answer (any 5xx,
 * 429) is not stored: a 503 almost always means the database could not be
 * reached and nothing was done, so the marker is released and the retry runs
 * (a write whose COMMIT was lost is the rare exception, see docs/api.md).
 *
 * Without the coordination the server cannot promise at-most-once, so a
 * request carrying the header is 503 `Unavailable` while the backend is down;
 * requests without it never touch the backend.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TtlCache } from "../../engine/index.ts";
import { DEFAULT_IDEMPOTENCY_MARKER_TTL_MS } from "../../config/defaults.ts";
import { TaskflowError, taskflowError } from "../../domain/errors.ts";
import { UnavailableError } from "../../domain/unavailable.ts";
import { NO_KEY_ID } from "./auth.ts";
import { idempotencyKeyOf, recordKey, REPLAYED_HEADER, requestHash } from "./idempotency-key.ts";
import {
  asRecord,
  type DoneRecord,
  type ReleasedRecord,
  type RunningRecord,
} from "./idempotency-record.ts";
import { addIdempotencyToSchema } from "./idempotency-schema.ts";
import { DEFAULT_TENANT } from "./request-context.ts";

/** How long an answer is replayed: a day covers a client's retries across an outage (Stripe keeps 24 h). */
export const RETAIN_MS = 24 * 60 * 60 * 1000;
/** A released key's tombstone; any later claim replaces it, so its length hardly matters. */
const RELEASED_TTL_MS = 60_000;
/** setIfAbsent/get rounds when the key keeps appearing and vanishing between them. */
const CLAIM_ATTEMPTS = 3;

interface Claim {
  tenant: string;
  key: string;
  marker: RunningRecord;
}

/**
 * `markerTtlMs`: how long a marker blocks its key (WF_IDEMPOTENCY_MARKER_TTL;
 * why one minute by default: config/defaults.ts).
 */
export function installIdempotency(
  scope: FastifyInstance,
  cache: TtlCache,
  markerTtlMs = DEFAULT_IDEMPOTENCY_MARKER_TTL_MS,
): void {
  const claims = new WeakMap<FastifyRequest, Claim>();
  scope.addHook("onRoute", addIdempotencyToSchema);
  scope.addHook("preHandler", async (req, reply) => {
    if (req.method !== "POST") return;
    const key = idempotencyKeyOf(req);
    if (key === undefined) return;
    const claim = await claimOrReplay(cache, markerTtlMs, req, reply, key);
    if (claim !== undefined) claims.set(req, claim);
  });
  scope.addHook("onSend", async (req, reply, payload) => {
    const claim = claims.get(req);
    if (claim === undefined) return payload;
    claims.delete(req);
    await settle(cache, claim, req, reply, payload);
    return payload;
  });
}

async function claimOrReplay(
  cache: TtlCache,
  markerTtlMs: number,
  req: FastifyRequest,
  reply: FastifyReply,
  clientKey: string,
): Promise<Claim | undefined> {
  const tenant = tenantOf(req);
  const key = recordKey(req.apiKeyId ?? NO_KEY_ID, clientKey);
  const hash = requestHash(req);
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const marker: RunningRecord = { state: "running", requestHash: hash, token: randomUUID() };
    const claimed = await reach(() => cache.setIfAbsent(tenant, key, { ...marker }, markerTtlMs));
    if (claimed) return { tenant, key, marker };
    const value = await reach(() => cache.get(tenant, key));
    const seen = asRecord(value);
    // Gone between the two calls (expired): claim again.
    if (seen === undefined || value === undefined) continue;
    if (seen.state === "released") {
      // Freed by a retryable answer: take it over, unless another request does first.
      const taken = await reach(() =>
        cache.compareAndSet(tenant, key, value, { ...marker }, markerTtlMs),
      );
      if (taken) return { tenant, key, marker };
      continue;
    }
    if (seen.requestHash !== hash) {
      throw taskflowError("IdempotencyKeyReused");
    }
    if (seen.state === "running") throw inProgress();
    replay(reply, seen);
    return undefined;
  }
  throw inProgress();
}

const inProgress = () => taskflowError("RequestInProgress");

function replay(reply: FastifyReply, record: DoneRecord): void {
  void reply
    .code(record.status)
    .header("content-type", record.contentType)
    .header(REPLAYED_HEADER, "true")
    .send(record.body);
}

/** Stores the answer in place of the marker, or removes the marker when the answer must not stick. */
async function settle(
  cache: TtlCache,
  claim: Claim,
  req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<void> {
  const status = reply.statusCode;
  const body = bodyText(payload);
  const { tenant, key, marker } = claim;
  try {
    if (status >= 500 || status === 429 || body === undefined) {
      const released: ReleasedRecord = { ...marker, state: "released" };
      await cache.compareAndSet(tenant, key, { ...marker }, { ...released }, RELEASED_TTL_MS);
      return;
    }
    const done: DoneRecord = {
      state: "done",
      requestHash: marker.requestHash,
      status,
      contentType: String(reply.getHeader("content-type") ?? "application/json"),
      body,
    };
    // Our own marker becomes the answer; if it expired meanwhile and nobody claimed the key, the
    // answer is still worth keeping. A newer claim's marker is never overwritten.
    const stored =
      (await cache.compareAndSet(tenant, key, { ...marker }, { ...done }, RETAIN_MS)) ||
      (await cache.setIfAbsent(tenant, key, { ...done }, RETAIN_MS));
    if (!stored)
      req.log.warn("idempotency: the key was claimed again before this answer was stored");
  } catch (err) {
    // The answer still goes out; a retry within markerTtlMs is 409, after it runs again.
    req.log.warn({ err }, "idempotency: the answer could not be stored");
  }
}

/** The serialised payload as text; undefined for a stream (never buffered here). */
function bodyText(payload: unknown): string | undefined {
  if (payload === undefined || payload === null) return "";
  if (typeof payload === "string") return payload;
  if (Buffer.isBuffer(payload)) return payload.toString("utf8");
  return undefined;
}

/** A backend failure is 503 (the client may retry the same key); a bad input stays what it is. */
async function reach<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof TaskflowError) throw e;
    throw new UnavailableError(
      "idempotency keys are unavailable: the coordination backend cannot be reached; retry later",
      { cause: e },
    );
  }
}

function tenantOf(req: FastifyRequest): string {
  const header = req.headers["x-tenant-id"];
  return typeof header === "string" ? header : DEFAULT_TENANT;
}
