/**
 * One poll per list, fanned out to every live stream that watches it.
 *
 * A stream (live-events-routes.ts) watches a few engine lists: a user's inbox, a group's
 * tasks, the unfinished runs, the open cache fences. Many streams watch the same lists:
 * one user's tabs, every member of a group, every operator's Runs page. Each list is a
 * feed here, read once per interval however many streams watch it, so the engine's load
 * grows with the number of distinct lists, not of open pages (a user with 12 tabs costs
 * what one tab does). The answer of a list does not depend on who asks: the Console
 * checked at the stream's start that its user may read it (a plain user's own inbox and
 * groups only), and the poll runs as one of the users watching it.
 *
 * After each round every stream is told the digest of its lists; it sends an event when
 * that changed. A list's first read happens at once when a stream brings a new list, so a
 * stream has its baseline within a poll; a list already watched gives its last digest.
 */
import { createHash, randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { forward, type EngineTarget } from "./engine-forwarder.ts";

export interface LiveList {
  /** Under /v1, with the query: "tasks?user=bob&limit=50". */
  path: string;
  /** What of the answer counts; all of it when absent. */
  digestOf?: (body: Buffer) => string | Buffer;
}

export interface Watcher {
  readonly lists: readonly LiveList[];
  readonly actorId: string;
  /** After a round: the digest of the watcher's lists, null while one has never been read. */
  polled(digest: string | null): void;
}

interface Feed {
  list: LiveList;
  watchers: Set<Watcher>;
  /** Of the last answer read; null before the first. */
  digest: string | null;
  /** The first read, done when the feed was made. */
  ready: Promise<void>;
}

/** Lists read at the same time in a round: the engine's pool is shared with real work. */
const ROUND_CONCURRENCY = 4;

export class LiveFeeds {
  private readonly feeds = new Map<string, Feed>();
  private readonly watchers = new Set<Watcher>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly engine: EngineTarget,
    private readonly pollMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Starts watching. The baseline is the digest of the lists once each has been read
   * (null when one read failed): a list already watched gives its last digest at once, a
   * new one is read now, off the round, since a baseline taken a round later could take
   * in a change the page never read.
   */
  watch(w: Watcher): { baseline: Promise<string | null>; stop: () => void } {
    this.watchers.add(w);
    const ready: Promise<void>[] = [];
    for (const list of w.lists) {
      let feed = this.feeds.get(list.path);
      if (feed === undefined) {
        const made: Feed = { list, watchers: new Set([w]), digest: null, ready: Promise.resolve() };
        made.ready = this.read(made);
        this.feeds.set(list.path, made);
        feed = made;
      }
      feed.watchers.add(w);
      ready.push(feed.ready);
    }
    this.timer ??= setInterval(() => void this.round(), this.pollMs);
    return {
      baseline: Promise.all(ready).then(() => this.digestFor(w)),
      stop: () => this.unwatch(w),
    };
  }

  private unwatch(w: Watcher): void {
    if (!this.watchers.delete(w)) return;
    for (const list of w.lists) {
      const feed = this.feeds.get(list.path);
      if (feed === undefined) continue;
      feed.watchers.delete(w);
      if (feed.watchers.size === 0) this.feeds.delete(list.path);
    }
    if (this.watchers.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private async round(): Promise<void> {
    // A round slower than the interval (a slow engine) is not stacked on by the next one.
    if (this.polling) return;
    this.polling = true;
    try {
      const queue = [...this.feeds.values()];
      const worker = async () => {
        for (let feed = queue.shift(); feed !== undefined; feed = queue.shift()) {
          await this.read(feed);
        }
      };
      await Promise.all(Array.from({ length: ROUND_CONCURRENCY }, worker));
      for (const w of [...this.watchers]) w.polled(this.digestFor(w));
    } finally {
      this.polling = false;
    }
  }

  private async read(feed: Feed): Promise<void> {
    const actor = feed.watchers.values().next().value?.actorId;
    if (actor === undefined) return;
    try {
      const a = await forward(this.engine, {
        method: "GET",
        pathAndQuery: feed.list.path,
        actorId: actor,
        requestId: randomUUID(),
        contentType: undefined,
        idempotencyKey: undefined,
        body: undefined,
      });
      const counted = feed.list.digestOf === undefined ? a.body : feed.list.digestOf(a.body);
      feed.digest = createHash("sha256").update(String(a.status)).update(counted).digest("hex");
    } catch (e) {
      // The last digest stays: a failed read is no change, and the next round tries again.
      this.log.warn({ err: e }, "console: a live-events poll failed");
    }
  }

  private digestFor(w: Watcher): string | null {
    const hash = createHash("sha256");
    for (const list of w.lists) {
      const digest = this.feeds.get(list.path)?.digest ?? null;
      if (digest === null) return null;
      hash.update(digest);
    }
    return hash.digest("base64url");
  }
}
