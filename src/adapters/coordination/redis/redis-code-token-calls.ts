/**
 * How one-time codes and opaque tokens talk to Redis: every call goes
 * through `call`, which turns "Redis cannot be reached" into the domain's
 * UnavailableError (→ 503) and lets Redis's own refusals (a bug: wrong type,
 * script error) through unchanged; scripts run by EVALSHA, loading them once
 * per connection on NOSCRIPT.
 */
import { createHash } from "node:crypto";
import { ReplyError, type Redis } from "ioredis";
import { UnavailableError } from "../../../domain/unavailable.ts";

/**
 * Replies that mean "this server cannot serve now", not "your command is
 * wrong": still loading its data, a replica after a failover, master link
 * down, a script running past its time limit.
 */
const OUTAGE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN)\b/;

export function isOutage(e: unknown): boolean {
  if (e instanceof UnavailableError) return false;
  if (e instanceof ReplyError) return OUTAGE_REPLIES.test((e as Error).message);
  // Closed connection, offline queue off, retries exhausted, ECONNREFUSED, timeouts.
  return true;
}

/**
 * The connection is lazy and has no offline queue, so a command sent before
 * the first connect completes is refused at once ("Stream isn't writeable").
 * Waits for that first connect only (bounded by its connectTimeout); while
 * Redis is down and reconnecting, commands still fail at once.
 */
function firstConnect(redis: Redis): Promise<void> {
  if (redis.status === "wait") redis.connect().catch(() => undefined);
  if (redis.status !== "connecting" && redis.status !== "connect") return Promise.resolve();
  return new Promise((resolve) => {
    const events = ["ready", "error", "close", "end"] as const;
    const done = () => {
      for (const e of events) redis.off(e, done);
      resolve();
    };
    for (const e of events) redis.once(e, done);
  });
}

export async function call<T>(redis: Redis, op: () => Promise<T>): Promise<T> {
  try {
    await firstConnect(redis);
    return await op();
  } catch (e) {
    if (isOutage(e)) throw new UnavailableError("redis is unavailable; retry later", { cause: e });
    throw e;
  }
}

export interface Script {
  readonly text: string;
  readonly sha: string;
}

export function script(text: string): Script {
  return { text, sha: createHash("sha1").update(text).digest("hex") };
}

export function runScript(
  redis: Redis,
  s: Script,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return call(redis, async () => {
    try {
      return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof ReplyError) || !String((e as Error).message).startsWith("NOSCRIPT")) {
        throw e;
      }
      return redis.eval(s.text, keys.length, ...keys, ...args);
    }
  });
}
