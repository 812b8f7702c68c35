/**
 * The Console's pages: the React build (dist/console-ui, made by `npm run build`, which
 * `npm ci` runs) served as static files under /console, and index.html for any other
 * GET below /console that is not the API, so a reload on /console/runs/42 lands on the
 * page the router draws. WF_CONSOLE_STATIC_DIR points at another build.
 */
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Where the build is, from this module: src/console/ when run from the sources, dist/
 * itself when built (the bundle's files are all in dist/, scripts/build.mjs).
 */
const BUILT_PLACES = ["../../dist/console-ui/", "./console-ui/"];

export function consolePagesDir(configured: string | null): string | null {
  if (configured !== null) return configured;
  for (const place of BUILT_PLACES) {
    const dir = fileURLToPath(new URL(place, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return null;
}

export async function consolePages(app: FastifyInstance, dir: string): Promise<void> {
  if (!existsSync(`${dir}/index.html`)) {
    throw new Error(`WF_CONSOLE_STATIC_DIR: ${dir} has no index.html (a Console build)`);
  }
  // index: false: a directory address gets the fallback below, not the static handler's
  // listing. GET /console/index.html is still served as a file, which is the same page.
  await app.register(fastifyStatic, { root: dir, prefix: "/", index: false, wildcard: true });
  // The static handler refuses a directory without an index (403): /console/ is the app.
  app.get("/", (_req, reply) => sendIndex(reply));
}

const sendIndex = (reply: FastifyReply) =>
  reply.type("text/html; charset=utf-8").sendFile("index.html");

/** For the not-found handler: a page address gets the index; null leaves the 404 to the caller. */
export function pageFallback(req: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const path = req.url.split("?")[0] ?? "";
  if (req.method !== "GET" || path.startsWith("/console/api/") || path.includes("/assets/")) {
    return null;
  }
  return sendIndex(reply);
}
