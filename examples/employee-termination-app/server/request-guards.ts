/**
 * Who is calling, and whether a mutation may run. The person comes only from
 * the session cookie, never from the request; a mutation must come from this
 * app's own pages (Origin / Sec-Fetch-Site) and carry the session's CSRF token.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { readCookie, SESSION_COOKIE } from "./cookies.ts";
import { personById, type Person } from "./people.ts";
import { csrfMatches, type Session, type Sessions } from "./sessions.ts";

export interface Caller {
  readonly person: Person;
  readonly session: Session;
}

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const sessionToken = (req: FastifyRequest): string | undefined =>
  readCookie(req.headers.cookie, SESSION_COOKIE);

export function callerOf(req: FastifyRequest, sessions: Sessions): Caller | undefined {
  const session = sessions.find(sessionToken(req));
  const person = session === undefined ? undefined : personById(session.userId);
  return session === undefined || person === undefined ? undefined : { person, session };
}

/**
 * A request another site made the browser send: Sec-Fetch-Site says so when the
 * browser sends it; Origin must then name this host. Neither header: refused,
 * since every browser this app supports sends one of them on a fetch POST.
 */
export function fromOwnPages(req: FastifyRequest): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return false;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }
  return site !== undefined;
}

/** onRequest hook for /api: origin on every mutation, and the CSRF token once logged in. */
export function guardMutations(sessions: Sessions) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!MUTATIONS.has(req.method)) return;
    if (!fromOwnPages(req)) return refuse(reply, "cross-site request");
    // Login has no session yet; the origin check is its guard.
    if (req.url === "/api/login") return;
    const session = sessions.find(sessionToken(req));
    const header = req.headers["x-csrf-token"];
    if (
      session !== undefined &&
      !csrfMatches(session, typeof header === "string" ? header : undefined)
    ) {
      return refuse(reply, "missing or wrong X-CSRF-Token");
    }
  };
}

async function refuse(reply: FastifyReply, why: string): Promise<void> {
  await reply.code(403).send({ error: "Forbidden", detail: why });
}

/** The caller, or a 401 answer sent and undefined returned. */
export async function requireCaller(
  req: FastifyRequest,
  reply: FastifyReply,
  sessions: Sessions,
): Promise<Caller | undefined> {
  const caller = callerOf(req, sessions);
  if (caller === undefined) await reply.code(401).send({ error: "Unauthorized" });
  return caller;
}
