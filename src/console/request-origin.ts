/**
 * The origin check of every mutating Console request (the first half of CSRF
 * protection; csrf-token.ts is the second). A browser names the page that sent
 * a request in Origin and, since 2020-2023 in every major engine, in
 * Sec-Fetch-Site; another site's page can set neither. A request with neither
 * header did not come from a current browser page of ours and is refused.
 */
import type { FastifyRequest } from "fastify";
import { type TaskflowError, taskflowError } from "../domain/errors.ts";

export const MUTATING_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * `allowed`: WF_CONSOLE_ORIGINS; empty: the Origin's host must be the request's
 * Host (the scheme is not compared: behind a TLS-terminating proxy this node
 * sees http while the browser says https).
 */
export function originRefusal(
  req: FastifyRequest,
  allowed: readonly string[],
): TaskflowError | null {
  if (!MUTATING_METHODS.has(req.method)) return null;
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") {
    return taskflowError("OriginRejected", {
      detail: `a ${site} request may not change anything in the Console`,
    });
  }
  const origin = req.headers.origin;
  if (origin === undefined) {
    return site === undefined
      ? taskflowError("OriginRejected", {
          detail: "a Console request that changes something needs an Origin header",
        })
      : null;
  }
  return originAllowed(origin, req.headers.host, allowed)
    ? null
    : taskflowError("OriginRejected", {
        detail: `origin ${JSON.stringify(origin.slice(0, 100))} may not use this Console`,
      });
}

function originAllowed(origin: string, host: string | undefined, allowed: readonly string[]) {
  if (allowed.length > 0) return allowed.includes(origin);
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
