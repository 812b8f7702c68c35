/**
 * GET /console/api/events?topic=inbox|runs|fences: server-sent events that tell an open
 * page its data changed, so it reads it again (nothing else travels on the stream).
 * `topic=inbox&group=<id>` also watches that group's tasks, for a group tab: the user's
 * groups are watched anyway, but the open directory names none, and there (as over REST)
 * anyone may read a group's list.
 *
 * The engine has no change feed a page could follow, so the Console polls the engine's
 * own lists (the inbox: the user's tasks and their groups'; runs: the unfinished runs;
 * fences: the open cache fences; the last two for operators) every `pollMs`, and a stream
 * sends an event when the answer of its lists differs from the last one. Each list is read
 * once per interval however many streams watch it (live-feeds.ts), and one login and one
 * user may hold only so many streams (live-stream-caps.ts), so open pages cannot crowd
 * out the engine's budget. The login is checked again at each poll: a revoked login ends
 * its streams within one interval.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../domain/limits.ts";
import type { Directory } from "../engine/index.ts";
import { requireUser, type AuthDeps } from "./console-auth.ts";
import type { EngineTarget } from "./engine-forwarder.ts";
import { LiveFeeds, type LiveList } from "./live-feeds.ts";
import { LiveStreamCaps, STREAM_CAPS, type StreamCapLimits } from "./live-stream-caps.ts";
import { holds } from "./roles.ts";

export interface LiveEventsDeps extends AuthDeps {
  engine: EngineTarget;
  pollMs: number;
  /** Default STREAM_CAPS. */
  streamCaps?: StreamCapLimits | undefined;
}

const TOPICS = ["inbox", "runs", "fences"] as const;
type Topic = (typeof TOPICS)[number];
const UNFINISHED = ["pending", "running", "waiting"] as const;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
/** A refused stream's Retry-After: about when a closed tab's stream has been let go. */
const OVER_CAP_RETRY_S = 5;

interface Shared {
  deps: LiveEventsDeps;
  feeds: LiveFeeds;
  caps: LiveStreamCaps;
  /** Every open stream's end, for the server's close. */
  open: Set<() => void>;
}

export function liveEventsRoutes(
  app: FastifyInstance,
  deps: LiveEventsDeps,
  done: (err?: Error) => void,
): void {
  const shared: Shared = {
    deps,
    feeds: new LiveFeeds(deps.engine, deps.pollMs, app.log),
    caps: new LiveStreamCaps(deps.streamCaps ?? STREAM_CAPS),
    open: new Set(),
  };
  // A stream never ends by itself, and a server that closes waits for its connections:
  // without this, a node with an open Console page would not stop on SIGTERM.
  app.addHook("preClose", (finished) => {
    for (const end of shared.open) end();
    finished();
  });
  app.get("/events", { preHandler: requireUser(deps) }, (req, reply) => stream(req, reply, shared));
  done();
}

function topicOf(req: FastifyRequest): Topic {
  const t = (req.query as Record<string, unknown>).topic;
  const topic = TOPICS.find((x) => x === t);
  if (topic === undefined)
    throw taskflowError("InvalidParameter", {
      detail: `topic must be one of ${TOPICS.join(", ")}`,
    });
  return topic;
}

function stream(req: FastifyRequest, reply: FastifyReply, shared: Shared): void {
  const { deps, feeds, caps, open } = shared;
  const user = req.consoleUser;
  if (user === undefined) throw taskflowError("LoginRequired");
  const topic = topicOf(req);
  if (topic !== "inbox" && !holds(user.roles, "operator")) {
    throw taskflowError("OperatorRequired", { detail: `live ${topic} are for operators` });
  }
  const { userId, familyId } = user.session;
  // Every refusal before the slot is taken: a slot is given back only by the stream's end.
  const tab = groupOf(req, topic, userId, deps.directory);
  const slot = caps.take(userId, familyId);
  if ("refused" in slot) {
    void reply.header("retry-after", String(OVER_CAP_RETRY_S));
    const limits = deps.streamCaps ?? STREAM_CAPS;
    throw taskflowError("TooManyStreams", {
      detail:
        slot.refused === "login"
          ? `this login already holds ${limits.perLogin} live-event streams; close a Console tab`
          : `user '${userId}' already holds ${limits.perUser} live-event streams; close a Console tab`,
    });
  }
  const lists = listsFor(topic, userId, deps.directory, tab);
  const cookies = deps.cookies.read(req);
  reply.hijack();
  const raw = reply.raw;
  // The hijacked answer skips Fastify's headers: the security headers set on the reply
  // (security-headers.ts, docs/console.md "Headers") are written here by hand.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value);
  }
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  raw.write("retry: 3000\n\n");
  let last: string | null = null;
  let closed = false;
  let checking = false;
  let lastWrite = Date.now();
  const polled = (digest: string | null) => {
    // A login check still running (a slow coordination) is not stacked on by the next round.
    if (checking || closed) return;
    checking = true;
    deps.sessions
      .authenticate(cookies.session, cookies.refresh)
      .then((live) => {
        if (live === null) return end();
        if (closed) return;
        if (digest !== null && last !== null && digest !== last) {
          raw.write(`event: ${topic}\ndata: {}\n\n`);
          lastWrite = Date.now();
        } else if (Date.now() - lastWrite > KEEPALIVE_MS) {
          raw.write(": keepalive\n\n");
          lastWrite = Date.now();
        }
        if (digest !== null) last = digest;
      })
      .catch((e: unknown) => req.log.warn({ err: e }, "console: a live-events login check failed"))
      .finally(() => (checking = false));
  };
  const watching = feeds.watch({ lists, actorId: userId, polled });
  void watching.baseline.then((digest) => {
    // A round may have given the stream a later one already.
    if (last === null) last = digest;
  });
  const end = () => {
    if (closed) return;
    closed = true;
    open.delete(end);
    watching.stop();
    slot.release();
    raw.end();
  };
  open.add(end);
  raw.on("close", end);
  // A browser that left while its login was checked closed before the listener: its slot
  // and lists are let go now, not at the server's stop.
  if (raw.destroyed || req.raw.socket.destroyed) end();
}

const ID = new RegExp(ID_PATTERN);

/** The group tab's group to watch too; checked as the proxy checks `?group=` (isMember). */
function groupOf(
  req: FastifyRequest,
  topic: Topic,
  userId: string,
  directory: Directory,
): string | null {
  const group = (req.query as Record<string, unknown>).group;
  if (group === undefined) return null;
  if (topic !== "inbox")
    throw taskflowError("InvalidParameter", { detail: "group is for topic=inbox only" });
  if (typeof group !== "string" || group.length > MAX_ID_LENGTH || !ID.test(group)) {
    throw taskflowError("InvalidParameter", { detail: "group must be one group id" });
  }
  if (!directory.isMember(userId, group)) {
    throw taskflowError("GroupMembershipRequired", { groupId: group });
  }
  return group;
}

function listsFor(
  topic: Topic,
  userId: string,
  directory: Directory,
  tab: string | null,
): LiveList[] {
  // A run that is created, changes state or finishes enters or leaves one of the
  // unfinished statuses' lists. Newest first, so a new run is always on the first page,
  // however many runs of its status came before it.
  if (topic === "runs") {
    return UNFINISHED.map((s) => ({ path: `runs?status=${s}&order=newest&limit=100` }));
  }
  if (topic === "fences") return [{ path: "admin/cache/mutations", digestOf: fenceIds }];
  const own = { path: `tasks?user=${encodeURIComponent(userId)}&limit=50` };
  const mine = directory.groupsOf(userId);
  const groups = (tab === null || mine.includes(tab) ? mine : [...mine, tab]).map((g) => ({
    path: `tasks?group=${encodeURIComponent(g)}&limit=50`,
  }));
  return [own, ...groups];
}

/** A fence list's answer grows older every second (ageMs): only which fences are open counts. */
function fenceIds(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { items?: { mutationId?: unknown }[] };
    return JSON.stringify((parsed.items ?? []).map((f) => f.mutationId));
  } catch {
    return body.toString("utf8");
  }
}
