/**
 * Lua scripts for the Redis locks, sent as EVALSHA and, the first time a
 * server has not seen one (NOSCRIPT: a restart, a failover, SCRIPT FLUSH), as
 * EVAL — what ioredis's defineCommand does, without adding methods to a
 * connection the host may have handed in.
 *
 * Errors: a Redis that cannot be reached (connection refused or lost, no
 * offline queue, loading, read-only replica after a failover) is the
 * domain's UnavailableError; any other reply error is a bug and passes as is.
 *
 * Every call is bounded by LOCK_COMMAND_TIMEOUT_MS: a command written just
 * before the connection died is resent after a reconnect, and behind a proxy
 * that accepts TCP without a Redis behind it that reconnect never fails, so
 * the call would wait forever. A connection still in "wait" (lazyConnect, as
 * a host may hand one in without an offline queue) is dialled first.
 */
import { createHash } from "node:crypto";
import { ReplyError, type Redis } from "ioredis";
import { UnavailableError } from "../../../domain/unavailable.ts";

/** Reply errors that mean "this server cannot serve writes now", not "your command is wrong". */
const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY)\b/;

export function redisUnavailable(e: unknown): never {
  // Ours, not Redis's: a bad argument to a client method stays what it is.
  if (e instanceof UnavailableError || e instanceof TypeError || e instanceof RangeError) throw e;
  const isReply = e instanceof ReplyError;
  const message = e instanceof Error ? e.message : String(e);
  if (!isReply || UNAVAILABLE_REPLIES.test(message)) {
    throw new UnavailableError("Redis is unavailable; retry later", { cause: e });
  }
  throw e;
}

/** Far longer than these commands take on a live Redis; longer than a 2 s connectTimeout. */
export const LOCK_COMMAND_TIMEOUT_MS = 3000;

const dialling = new WeakMap<Redis, Promise<void>>();

function ready(redis: Redis): Promise<void> {
  const pending = dialling.get(redis);
  if (pending !== undefined) return pending;
  if (redis.status !== "wait") return Promise.resolve();
  const attempt = redis.connect().finally(() => dialling.delete(redis));
  dialling.set(redis, attempt);
  return attempt;
}

/** Runs `fn` once the connection is dialled, within the timeout; failures as above. */
export async function redisCall<T>(redis: Redis, fn: (r: Redis) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis gave no answer within ${LOCK_COMMAND_TIMEOUT_MS} ms`)),
      LOCK_COMMAND_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([ready(redis).then(() => fn(redis)), timeout]);
  } catch (e) {
    return redisUnavailable(e);
  } finally {
    clearTimeout(timer);
  }
}

export class RedisScript {
  readonly #sha: string;

  constructor(readonly lua: string) {
    this.#sha = createHash("sha1").update(lua).digest("hex");
  }

  run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    return redisCall(redis, async (r) => {
      try {
        return await r.evalsha(this.#sha, keys.length, ...keys, ...args);
      } catch (e) {
        if (!(e instanceof ReplyError && /^NOSCRIPT\b/.test((e as Error).message))) throw e;
      }
      return r.eval(this.lua, keys.length, ...keys, ...args);
    });
  }
}
