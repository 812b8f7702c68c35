/**
 * The bounded mode's revision signal over Redis pub/sub, for deployments whose
 * definition cache or coordination is on Redis (any database): PUBLISH on a
 * normal connection — the host's when it handed one in — and SUBSCRIBE on a
 * connection of the signal's own (a `duplicate()`: a subscribed connection
 * can send nothing else, so it is never shared).
 *
 * The channel is `<WF_DEFINITION_CACHE_PREFIX><deployment id>:revision`:
 * nodes of one deployment share it, another deployment on the same Redis has
 * its own whatever its prefix (src/domain/deployment-id.ts). The
 * payload is the sending signal's id, so a node skips its own messages.
 *
 * The subscriber reconnects by itself (ioredis, with backoff); each time it is
 * ready again it subscribes anew and reports onMoved, for what was published
 * while it listened to nothing. Nothing of this ever rejects for an outage:
 * a failed PUBLISH, or a subscriber that cannot connect, is a warning (at most
 * one per kind per 10 s) and the nodes' poll covers the gap.
 *
 * close() disconnects the subscriber, and the publishing connection only when
 * the signal opened it: a connection the host handed in stays open.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { CacheWarnLog } from "../../engine/definition-cache/cache-provider-port.ts";
import type { RevisionSignal } from "../../engine/definition-cache/revision-signal-port.ts";
import { deploymentKeySpace } from "../../domain/deployment-id.ts";
import { redisCall } from "../coordination/redis/redis-calls.ts";
import { warnLimiter } from "./warn-limiter.ts";

export interface RedisRevisionSignalOptions {
  /** The publishing connection; the subscriber is its duplicate. */
  redis: Redis;
  /** false: the host handed the connection in and closes it itself. */
  ownsConnection: boolean;
  /** revisionChannel(…); a function is asked once, at start() or the first publish. */
  channel: string | (() => string);
  log: CacheWarnLog;
}

export const revisionChannel = (definitionCachePrefix: string, deploymentId: string) =>
  `${deploymentKeySpace(definitionCachePrefix, deploymentId)}revision`;

/** The subscriber's CLIENT SETNAME (the prefix's characters are all allowed in a name). */
export const subscriberName = (channel: string) => `taskflow-signal:${channel}`;

export function redisRevisionSignal(options: RedisRevisionSignalOptions): RevisionSignal {
  const { redis } = options;
  let resolved: string | undefined;
  const channelOf = () =>
    (resolved ??= typeof options.channel === "string" ? options.channel : options.channel());
  const self = randomUUID();
  const warn = warnLimiter(options.log);
  const causeOf = (e: unknown) => {
    const cause = (e as Error).cause instanceof Error ? (e as Error).cause : e;
    return cause instanceof Error ? cause.message : String(cause);
  };
  let subscriber: Redis | undefined;
  let closed = false;

  return {
    kind: "redis",

    async start(onMoved) {
      if (closed || subscriber !== undefined) return;
      const channel = channelOf();
      const sub = redis.duplicate({
        lazyConnect: true,
        // Subscribed again by the ready handler below, which then reports onMoved.
        autoResubscribe: false,
        enableOfflineQueue: true,
        // An operator's CLIENT LIST tells which deployment a subscriber belongs to.
        connectionName: subscriberName(channel),
      });
      subscriber = sub;
      const unreachable = (e: unknown) => {
        if (closed) return;
        warn(
          "redis-subscriber",
          { cause: causeOf(e) },
          "definition cache: the revision subscriber cannot reach Redis; retrying, other nodes' changes are seen at the poll",
        );
      };
      sub.on("error", unreachable);
      sub.on("message", (from: string, payload: string) => {
        if (!closed && from === channel && payload !== self) onMoved();
      });
      let listening: Promise<void> | undefined;
      const listen = (): Promise<void> =>
        sub.subscribe(channel).then(
          () => {
            if (!closed) onMoved();
          },
          (e: unknown) => {
            if (closed) return;
            warn(
              "redis-subscribe",
              { cause: causeOf(e) },
              "definition cache: SUBSCRIBE failed; retried when the connection is back",
            );
          },
        );
      sub.on("ready", () => {
        listening = listen();
      });
      try {
        await sub.connect();
        await (listening ?? listen());
      } catch (e) {
        // ioredis keeps reconnecting; the ready handler subscribes once it can.
        unreachable(e);
      }
    },

    async publish() {
      try {
        const channel = channelOf();
        await redisCall(redis, (r) => r.publish(channel, self));
      } catch (e) {
        warn(
          "redis-publish",
          { cause: causeOf(e) },
          "definition cache: PUBLISH failed; other nodes see the change at their poll",
        );
      }
    },

    async close() {
      closed = true;
      const sub = subscriber;
      subscriber = undefined;
      sub?.disconnect();
      if (options.ownsConnection) await closeQuietly(redis);
    },
  };
}

async function closeQuietly(redis: Redis): Promise<void> {
  if (redis.status === "wait" || redis.status === "end") {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
