/**
 * Which engine routes the Console forwards, and the role each needs. A route
 * not in this table is not forwarded (404): new engine routes stay closed to
 * the browser until someone decides who may use them. docs/console.md has the
 * same table for people.
 *
 * user: their own work — inbox, tasks, starting processes, assignments,
 * reading instances and definitions. operator: the machinery — durable runs
 * (list, read, start, signal, cancel), drafting and validating definitions,
 * the definition cache's fences. admin: what changes the tenant's work for
 * everyone in it — publishing and retracting definition versions, the tenant's API
 * keys (tenant-keys.ts narrows the key routes to the Console's tenant).
 */
import type { Role } from "./roles.ts";

interface RouteRule {
  method: string;
  /** Segments after /v1; ":x" matches one segment, "**" the rest (one or more). */
  pattern: readonly string[];
  role: Role;
}

const rule = (method: string, path: string, role: Role): RouteRule => ({
  method,
  pattern: path.split("/"),
  role,
});

export const ENGINE_ROUTE_ROLES: readonly RouteRule[] = [
  rule("GET", "tasks", "user"),
  rule("GET", "tasks/:id", "user"),
  rule("POST", "tasks/:id/claim", "user"),
  rule("POST", "tasks/:id/release", "user"),
  rule("POST", "tasks/:id/complete", "user"),
  rule("POST", "tasks/:id/complete-and-end", "user"),
  rule("GET", "tasks/:id/events", "user"),
  rule("POST", "tasks/:id/comments", "user"),
  rule("POST", "tasks/:id/delegate", "user"),
  rule("POST", "tasks/:id/resolve", "user"),
  rule("POST", "tasks/:id/reassign", "user"),
  rule("POST", "processes", "user"),
  rule("GET", "processes", "user"),
  rule("POST", "assignments", "user"),
  rule("GET", "instances/:id", "user"),
  rule("GET", "instances/:id/completion", "user"),
  rule("GET", "instances/:id/events", "user"),
  rule("GET", "definitions", "user"),
  rule("GET", "definitions/:key", "user"),
  rule("GET", "definitions/:key/versions", "user"),
  rule("GET", "definitions/:key/versions/:version", "user"),
  rule("GET", "definitions/:key/diff", "user"),
  rule("POST", "definitions/validate", "operator"),
  rule("PUT", "definitions/:key/draft", "operator"),
  rule("GET", "runs", "operator"),
  rule("GET", "runs/:id", "operator"),
  rule("GET", "runs/:id/history", "operator"),
  rule("POST", "runs/:id/cancel", "operator"),
  rule("POST", "runs/:id/signals/:name", "operator"),
  rule("POST", "workflows/:name/runs", "operator"),
  rule("GET", "admin/cache/mutations", "operator"),
  rule("POST", "admin/cache/mutations/:id/complete", "operator"),
  rule("POST", "definitions/:key/publish", "admin"),
  rule("POST", "definitions/:key/versions/:version/retract", "admin"),
  // The key list and create are `keys` itself, which "keys/**" (one segment or more) misses.
  rule("GET", "keys", "admin"),
  rule("POST", "keys", "admin"),
  ...["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => rule(m, "keys/**", "admin")),
];

/** The role the route needs; undefined when the Console does not forward it. */
export function roleFor(method: string, segments: readonly string[]): Role | undefined {
  // The first matching rule wins. Where a ":key" pattern also matches a fixed
  // name (GET definitions/:key and definitions/schema), both need the same role.
  for (const r of ENGINE_ROUTE_ROLES) {
    if (r.method === method && matches(r.pattern, segments)) return r.role;
  }
  return undefined;
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  if (pattern.at(-1) === "**") {
    const fixed = pattern.slice(0, -1);
    return segments.length > fixed.length && matches(fixed, segments.slice(0, fixed.length));
  }
  if (pattern.length !== segments.length) return false;
  return pattern.every((p, i) => p.startsWith(":") || p === segments[i]);
}
