/**
 * Lua scripts for the Redis locks, sent as EVALSHA and, the first time a
 * server has not seen one (NOSCRIPT: a restart, a failover, SCRIPT FLUSH), as
 * EVAL — what ioredis's defineCommand does, without adding methods to a
 * connection the host may have handed in.
 *
 * Errors: a Redis that cannot be reached (connection refused or lost, no
 * offline queue, loading, read-only replica after a failover) is the
 * domain's UnavailableError; any other reply error is a bug and passes as is.
 */
import { createHash } from "node:crypto";
import { ReplyError, type Redis } from "ioredis";
import { UnavailableError } from "../../../domain/unavailable.ts";

/** Reply errors that mean "this server cannot serve writes now", not "your command is wrong". */
const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY)\b/;

export function redisUnavailable(e: unknown): never {
  if (e instanceof UnavailableError) throw e;
  const isReply = e instanceof ReplyError;
  const message = e instanceof Error ? e.message : String(e);
  if (!isReply || UNAVAILABLE_REPLIES.test(message)) {
    throw new UnavailableError("Redis is unavailable; retry later", { cause: e });
  }
  throw e;
}

export class RedisScript {
  readonly #sha: string;

  constructor(readonly lua: string) {
    this.#sha = createHash("sha1").update(lua).digest("hex");
  }

  async run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof ReplyError && /^NOSCRIPT\b/.test((e as Error).message))) {
        return redisUnavailable(e);
      }
    }
    return redis.eval(this.lua, keys.length, ...keys, ...args).catch(redisUnavailable);
  }
}
