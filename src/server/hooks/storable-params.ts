/**
 * Path and query values are text the engine may store (a signal name) or send
 * to the database as a key: the same refusal as for JSON bodies (NUL, unpaired
 * surrogates; see domain/storable-text.ts), so `POST /v1/runs/r/signals/a%00b`
 * is a 400 on every store instead of a PostgreSQL 500. A query parameter named
 * `__proto__` is refused as a body key of that name is (json-text-scan.ts): a
 * hook's query becomes a run's vars, and the routes' own schemas never name it. Headers need no check:
 * Node refuses a NUL in them, and their bytes are Latin-1, which has no surrogates.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import { findUnstorableText } from "../../domain/storable-text.ts";

export function refuseUnstorableParams(
  req: FastifyRequest,
  _reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  const found = findIn(req.params, "path parameter") ?? findIn(req.query, "query parameter");
  done(found === null ? undefined : taskflowError("UnstorableText", { detail: found }));
}

function findIn(values: unknown, what: string): string | null {
  if (typeof values !== "object" || values === null) return null;
  for (const name in values) {
    if (name === "__proto__") return `${what} __proto__: keys named __proto__ are not accepted`;
    const value = (values as Record<string, unknown>)[name];
    // Every request passes here: the parameter's name is shown only for the one refused.
    if (findUnstorableText(value, "") === null) continue;
    const shown = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : JSON.stringify(name.slice(0, 40));
    return findUnstorableText(value, `${what} ${shown}`);
  }
  return null;
}
