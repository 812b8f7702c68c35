/**
 * The app's backend (a BFF): the built pages, and /api for them. It is the
 * only thing the browser talks to; TaskFlow is reached from here, with the
 * API key, over its private port.
 */
import fastifyStatic from "@fastify/static";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { existsSync } from "node:fs";
import { isTaskflowHttpError, type TaskflowClient } from "taskflow/client";
import { authRoutes } from "./auth-routes.ts";
import { guardMutations } from "./request-guards.ts";
import { setSecurityHeaders } from "./security-headers.ts";
import { Sessions } from "./sessions.ts";
import { taskRoutes } from "./task-routes.ts";
import { terminationRoutes } from "./termination-routes.ts";

export interface BackendOptions {
  taskflow: TaskflowClient;
  /** The Vite build of web/ (index.html and assets/). */
  pagesDir: string;
  /** Secure cookies: on when the app is served over HTTPS. */
  secureCookies: boolean;
}

export async function buildBackend(o: BackendOptions): Promise<FastifyInstance> {
  if (!existsSync(`${o.pagesDir}/index.html`)) throw new Error(`no pages built in ${o.pagesDir}`);
  const app = Fastify({ logger: false });
  const sessions = new Sessions();
  app.addHook("onRequest", setSecurityHeaders);
  const guard = guardMutations(sessions);
  app.addHook("onRequest", async (req, reply) => {
    if (req.url.startsWith("/api/")) await guard(req, reply);
  });
  app.setErrorHandler(answerError);
  authRoutes(app, sessions, o.secureCookies);
  taskRoutes(app, o.taskflow, sessions);
  terminationRoutes(app, o.taskflow, sessions);
  await app.register(fastifyStatic, { root: o.pagesDir, prefix: "/", index: "index.html" });
  // Any other page address is the single-page app; unknown /api paths stay 404.
  app.setNotFoundHandler((req, reply) => {
    if (req.method === "GET" && !req.url.startsWith("/api/")) return reply.sendFile("index.html");
    return reply.code(404).send({ error: "NotFound" });
  });
  return app;
}

/**
 * TaskFlow's refusals pass on as their status and code (a task of another
 * company is TaskFlow's 404), with the problem's detail, which names the task
 * or the form field and never a header. Anything else is a 500 without details.
 */
function answerError(e: FastifyError, _req: unknown, reply: FastifyReply) {
  // TaskFlow refusing the backend's own key is this server's fault, not the user's login.
  if (isTaskflowHttpError(e) && e.status === 401) {
    console.error("TaskFlow refused the backend's API key");
    return reply.code(503).send({ error: "Unavailable" });
  }
  if (isTaskflowHttpError(e) && e.status < 500) {
    return reply.code(e.status).send({ error: e.code, detail: e.detail });
  }
  if (typeof e.statusCode === "number" && e.statusCode < 500) {
    return reply.code(e.statusCode).send({ error: e.code ?? "BadRequest" });
  }
  console.error(e);
  return reply.code(500).send({ error: "Internal" });
}
