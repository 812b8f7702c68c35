/**
 * Calls the engine's REST API for the Console with what only the server
 * holds: the API key, X-Actor-Id from the session and X-Tenant-Id from the
 * configuration. From the browser's request only the body and a few harmless
 * headers travel on; its cookies,
 * X-Api-Key, X-Actor-Id and X-Tenant-Id never do. From the engine's answer
 * only status, body and a few headers come back.
 *
 * A plain fetch (not the typed client): the Console passes bodies and
 * answers through unchanged, so decoding them into types would only lose
 * what it does not know.
 */
import { createHash } from "node:crypto";
import { UnavailableError } from "../domain/unavailable.ts";

export interface EngineTarget {
  /** e.g. http://127.0.0.1:8081; asked per request (the address is known once listening). */
  baseUrl(): string;
  /** null: the engine runs without keys (development). */
  apiKey: string | null;
  /** The tenant every call acts in (WF_CONSOLE_TENANT), whatever the browser sends. */
  tenantId: string;
}

export interface ForwardRequest {
  method: string;
  /** Under /v1, with the query: "tasks?status=open". */
  pathAndQuery: string;
  actorId: string;
  requestId: string;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  body: Buffer | undefined;
}

export interface ForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Engine answer headers the browser may see; everything else stays behind. */
const ANSWER_HEADERS = ["content-type", "retry-after", "allow", "idempotent-replayed", "location"];
/** A request the engine does not answer in this long is given up (its own work is bounded by its pool). */
const TIMEOUT_MS = 30_000;

export async function forward(target: EngineTarget, r: ForwardRequest): Promise<ForwardAnswer> {
  const headers: Record<string, string> = {
    "x-actor-id": r.actorId,
    "x-tenant-id": target.tenantId,
    "x-request-id": r.requestId,
    accept: "application/json",
  };
  if (target.apiKey !== null) headers["x-api-key"] = target.apiKey;
  if (r.contentType !== undefined) headers["content-type"] = r.contentType;
  if (r.idempotencyKey !== undefined) {
    headers["idempotency-key"] = perUserKey(r.actorId, r.idempotencyKey);
  }
  let res: Response;
  try {
    res = await fetch(`${target.baseUrl()}/v1/${r.pathAndQuery}`, {
      method: r.method,
      headers,
      ...(r.body === undefined || r.body.length === 0 ? {} : { body: r.body }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: "manual",
    });
  } catch (e) {
    throw new UnavailableError("the engine could not be reached", { cause: e });
  }
  const body = Buffer.from(await res.arrayBuffer());
  const out: Record<string, string> = {};
  for (const name of ANSWER_HEADERS) {
    const v = res.headers.get(name);
    if (v !== null) out[name] = v;
  }
  return { status: res.status, headers: out, body };
}

/**
 * Every Console user calls the engine with the same API key, and the engine
 * keeps Idempotency-Key records per key: the user's id is mixed in, so two
 * users' equal keys never answer each other's requests. 43 characters,
 * within the engine's 255.
 */
function perUserKey(actorId: string, key: string): string {
  return createHash("sha256").update(`${actorId}\n${key}`).digest("base64url");
}
