/**
 * How every Redis primitive (locks, rate limiters, TTL cache, codes, tokens)
 * calls Redis: the first call dials a lazy connection, and a Redis that cannot
 * be reached is UnavailableError.
 *
 * The shared connection is lazy and has no offline queue (a command while
 * Redis is down fails at once instead of waiting in memory). Without an
 * offline queue ioredis also refuses the very first command, sent while the
 * lazy connection is still dialling; so the first caller starts connect() and
 * everybody arriving before it is ready waits for that one attempt, bounded by
 * the connection's connectTimeout. Later outages fail fast while ioredis
 * reconnects in the background.
 *
 * One case fails neither fast nor at all: a command already written when the
 * connection dies is kept for resending, and if something still accepts TCP
 * on Redis's address (a proxy or load balancer without a healthy Redis
 * behind it) every reconnect "succeeds" and the command waits forever. So
 * every call is also bounded by COMMAND_TIMEOUT_MS.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { redisDriver } from "../../drivers.ts";
import { UnavailableError } from "../../../domain/unavailable.ts";

const MESSAGE = "redis is unavailable; retry later";

/**
 * Longer than the connection's 2 s connectTimeout, so a first call waits for
 * its dial to fail rather than for this; far longer than any of these
 * commands takes on a live Redis (well under a millisecond).
 */
export const COMMAND_TIMEOUT_MS = 3000;

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
  // Our own mistakes (a bad argument to a client method) stay what they are.
  if (e instanceof UnavailableError || e instanceof TypeError || e instanceof RangeError) {
    return false;
  }
  if (e instanceof redisDriver().ReplyError) return UNAVAILABLE_REPLY.test((e as Error).message);
  // Connection refused or reset, connect timeout, "Stream isn't writeable",
  // "Connection is closed", MaxRetriesPerRequestError: all transport failures.
  return e instanceof Error;
}

/** Runs `fn` on a connected client; transport failures become UnavailableError. */
export async function redisCall<T>(redis: Redis, fn: (r: Redis) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${COMMAND_TIMEOUT_MS} ms`)),
      COMMAND_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([ready(redis).then(() => fn(redis)), timeout]);
  } catch (e) {
    if (isUnavailableRedisError(e)) throw new UnavailableError(MESSAGE, { cause: e });
    throw e;
  } finally {
    clearTimeout(timer);
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
    if (!(e instanceof redisDriver().ReplyError) || !(e as Error).message.startsWith("NOSCRIPT"))
      throw e;
    return await r.eval(script.text, keys.length, ...keys, ...args);
  }
}
