/**
 * How the Redis rate limiters and TTL cache call Redis: the first call dials a
 * lazy connection, and a Redis that cannot be reached is UnavailableError.
 *
 * The shared connection is lazy and has no offline queue (a command while
 * Redis is down fails at once instead of waiting in memory). Without an
 * offline queue ioredis also refuses the very first command, sent while the
 * lazy connection is still dialling; so the first caller starts connect() and
 * everybody arriving before it is ready waits for that one attempt, bounded by
 * the connection's connectTimeout. Later outages fail fast while ioredis
 * reconnects in the background.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { ReplyError } from "ioredis";
import { UnavailableError } from "../../../domain/unavailable.ts";

const MESSAGE = "redis is unavailable; retry later";

/** Replies that mean "this server cannot serve now", not "this command is wrong". */
const UNAVAILABLE_REPLY = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY)\b/;

const dialling = new WeakMap<Redis, Promise<void>>();

function ready(redis: Redis): Promise<void> {
  // Checked before the status: connect() moves it on from "wait" at once.
  const pending = dialling.get(redis);
  if (pending !== undefined) return pending;
  if (redis.status !== "wait") return Promise.resolve();
  const attempt = redis.connect().finally(() => dialling.delete(redis));
  dialling.set(redis, attempt);
  return attempt;
}

export function isUnavailableRedisError(e: unknown): boolean {
  if (e instanceof UnavailableError) return false;
  if (e instanceof ReplyError) return UNAVAILABLE_REPLY.test((e as Error).message);
  // Connection refused or reset, connect timeout, "Stream isn't writeable",
  // "Connection is closed", MaxRetriesPerRequestError: all transport failures.
  return e instanceof Error;
}

/** Runs `fn` on a connected client; transport failures become UnavailableError. */
export async function redisCall<T>(redis: Redis, fn: (r: Redis) => Promise<T>): Promise<T> {
  try {
    await ready(redis);
    return await fn(redis);
  } catch (e) {
    if (isUnavailableRedisError(e)) throw new UnavailableError(MESSAGE, { cause: e });
    throw e;
  }
}

export interface LuaScript {
  readonly text: string;
  readonly sha: string;
}

export function luaScript(text: string): LuaScript {
  return { text, sha: createHash("sha1").update(text).digest("hex") };
}

/**
 * EVALSHA, falling back to EVAL once when the server has not cached the
 * script (after a restart or a failover): the text travels only then.
 */
export async function runScript(
  r: Redis,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await r.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (e) {
    if (!(e instanceof ReplyError) || !(e as Error).message.startsWith("NOSCRIPT")) throw e;
    return await r.eval(script.text, keys.length, ...keys, ...args);
  }
}
