/**
 * GET /console/api/events?topic=inbox|runs: server-sent events that tell an open page
 * its data changed, so it reads it again (nothing else travels on the stream).
 *
 * The engine has no change feed a page could follow, so each stream polls the engine's
 * own lists as its user (the inbox: the user's tasks and their groups'; runs: the
 * unfinished runs, and the open cache fences, for operators) every `pollMs` and sends an event when the answer
 * differs from the last one. The cost is one or two list reads per open page per second;
 * the engine answers a first page in about a millisecond, so a hundred open pages cost
 * about 10% of one core. The login is checked again at each poll: a revoked login ends
 * its streams within one interval.
 */
import { createHash, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { forbidden, validation } from "../domain/errors.ts";
import type { Directory } from "../engine/ports.ts";
import { requireUser, unauthorized, type AuthDeps } from "./console-auth.ts";
import { forward, type EngineTarget } from "./engine-forwarder.ts";
import { holds } from "./roles.ts";

export interface LiveEventsDeps extends AuthDeps {
  engine: EngineTarget;
  pollMs: number;
}

const TOPICS = ["inbox", "runs", "fences"] as const;
type Topic = (typeof TOPICS)[number];
const UNFINISHED = ["pending", "running", "waiting"] as const;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

export function liveEventsRoutes(
  app: FastifyInstance,
  deps: LiveEventsDeps,
  done: (err?: Error) => void,
): void {
  // A stream never ends by itself, and a server that closes waits for its connections:
  // without this, a node with an open Console page would not stop on SIGTERM.
  const open = new Set<() => void>();
  app.addHook("preClose", (finished) => {
    for (const end of open) end();
    finished();
  });
  app.get("/events", { preHandler: requireUser(deps) }, (req, reply) =>
    stream(req, reply, deps, open),
  );
  done();
}

function topicOf(req: FastifyRequest): Topic {
  const t = (req.query as Record<string, unknown>).topic;
  const topic = TOPICS.find((x) => x === t);
  if (topic === undefined) throw validation(`topic must be one of ${TOPICS.join(", ")}`);
  return topic;
}

function stream(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: LiveEventsDeps,
  open: Set<() => void>,
): void {
  const user = req.consoleUser;
  if (user === undefined) throw unauthorized("log in to the Console first");
  const topic = topicOf(req);
  if (topic !== "inbox" && !holds(user.roles, "operator")) {
    throw forbidden(`live ${topic} are for operators`);
  }
  const paths = pathsFor(topic, user.session.userId, deps.directory);
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
  let lastWrite = Date.now();
  const poll = async () => {
    const live = await deps.sessions.authenticate(cookies.session, cookies.refresh);
    if (live === null) return end();
    const digest = await fingerprint(deps.engine, user.session.userId, paths, topic);
    if (closed) return;
    if (last !== null && digest !== last) {
      raw.write(`event: ${topic}\ndata: {}\n\n`);
      lastWrite = Date.now();
    } else if (Date.now() - lastWrite > KEEPALIVE_MS) {
      raw.write(": keepalive\n\n");
      lastWrite = Date.now();
    }
    last = digest;
  };
  const end = () => {
    if (closed) return;
    closed = true;
    open.delete(end);
    clearInterval(timer);
    raw.end();
  };
  open.add(end);
  let polling = false;
  const tick = () => {
    if (polling || closed) return;
    polling = true;
    poll()
      .catch((e: unknown) => req.log.warn({ err: e }, "console: a live-events poll failed"))
      .finally(() => (polling = false));
  };
  const timer = setInterval(tick, deps.pollMs);
  raw.on("close", end);
  tick();
}

function pathsFor(topic: Topic, userId: string, directory: Directory): string[] {
  // A run that is created, changes state or finishes enters or leaves one of the
  // unfinished statuses' lists. Newest first, so a new run is always on the first page,
  // however many runs of its status came before it.
  if (topic === "runs") return UNFINISHED.map((s) => `runs?status=${s}&order=newest&limit=100`);
  if (topic === "fences") return ["admin/cache/mutations"];
  const own = `tasks?user=${encodeURIComponent(userId)}&limit=50`;
  const groups = directory
    .groupsOf(userId)
    .map((g) => `tasks?group=${encodeURIComponent(g)}&limit=50`);
  return [own, ...groups];
}

async function fingerprint(
  engine: EngineTarget,
  actorId: string,
  paths: string[],
  topic: Topic,
): Promise<string> {
  const hash = createHash("sha256");
  for (const pathAndQuery of paths) {
    const a = await forward(engine, {
      method: "GET",
      pathAndQuery,
      actorId,
      requestId: randomUUID(),
      contentType: undefined,
      idempotencyKey: undefined,
      body: undefined,
    });
    hash.update(String(a.status)).update(topic === "fences" ? fenceIds(a.body) : a.body);
  }
  return hash.digest("base64url");
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
