/**
 * Login for the demo: a picker of the demo users, no password and no code.
 * That is the one part of this app that is not real, and it says so on the
 * page. What follows a login is: an opaque session token in an HttpOnly,
 * SameSite=Lax cookie, and a CSRF token the page sends back on mutations.
 * A product puts its own sign-in (SSO, one-time codes) in place of POST /api/login.
 */
import type { FastifyInstance } from "fastify";
import { sessionCookie } from "./cookies.ts";
import { PEOPLE, personById, type Person } from "./people.ts";
import { callerOf, sessionToken } from "./request-guards.ts";
import { SESSION_TTL_MS, type Sessions } from "./sessions.ts";

const publicPerson = (p: Person) => ({ id: p.id, name: p.name, company: p.company, role: p.role });

export function authRoutes(app: FastifyInstance, sessions: Sessions, secureCookies: boolean) {
  app.get("/api/demo-users", () => ({ items: PEOPLE.map(publicPerson) }));

  app.post<{ Body: { userId?: unknown } | null }>("/api/login", async (req, reply) => {
    const person = personById(typeof req.body?.userId === "string" ? req.body.userId : "");
    if (person === undefined)
      return reply.code(400).send({ error: "Validation", detail: "unknown user" });
    sessions.end(sessionToken(req)); // a new login replaces the browser's old one
    const { token, session } = sessions.create(person.id);
    void reply.header("set-cookie", sessionCookie(token, SESSION_TTL_MS / 1000, secureCookies));
    return { user: publicPerson(person), csrfToken: session.csrfToken };
  });

  app.post("/api/logout", async (req, reply) => {
    sessions.end(sessionToken(req));
    return reply
      .header("set-cookie", sessionCookie("", 0, secureCookies))
      .code(204)
      .send();
  });

  app.get("/api/session", async (req, reply) => {
    const caller = callerOf(req, sessions);
    if (caller === undefined) return reply.code(401).send({ error: "Unauthorized" });
    return { user: publicPerson(caller.person), csrfToken: caller.session.csrfToken };
  });
}
