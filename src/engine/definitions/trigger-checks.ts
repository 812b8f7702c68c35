/**
 * HTTP triggers must not collide: two triggers with the same method and the
 * same path template (parameter names aside: "/orders/{id}" and
 * "/orders/{orderId}" are one route) could not be told apart. Checked within
 * the definition, and — when publishing — against the triggers of the
 * tenant's other published definitions.
 */
import type { FieldError } from "../../domain/errors.ts";
import { isRecord, pointer } from "./json-pointer.ts";

/** A trigger of another published definition. */
export interface PublishedTrigger {
  key: string;
  version: number;
  method: string;
  path: string;
}

/** The route a trigger takes: method and path with parameter names erased. */
export const routeOf = (method: string, path: string): string =>
  `${method.toUpperCase()} ${path.replace(/\{[^}/]*\}/g, "{}").replace(/\/+$/, "") || "/"}`;

export function triggerErrors(
  doc: unknown,
  published: readonly PublishedTrigger[] | undefined,
): FieldError[] {
  if (!isRecord(doc) || !Array.isArray(doc["triggers"])) return [];
  const key = doc["key"];
  const taken = new Map<string, string>();
  for (const p of published ?? []) {
    if (p.key !== key)
      taken.set(routeOf(p.method, p.path), `definition '${p.key}' (version ${p.version})`);
  }
  const errors: FieldError[] = [];
  doc["triggers"].forEach((t, i) => {
    if (!isRecord(t) || typeof t["method"] !== "string" || typeof t["path"] !== "string") return;
    const route = routeOf(t["method"], t["path"]);
    const owner = taken.get(route);
    if (owner !== undefined) {
      errors.push({
        pointer: pointer("/triggers", i),
        reason: `${route} is already taken by ${owner}`,
      });
    } else taken.set(route, `/triggers/${i}`);
  });
  return errors;
}
