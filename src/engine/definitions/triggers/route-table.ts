/**
 * The trigger routes of every tenant, compiled and immutable: built whole
 * (compile-route-table.ts) and swapped in whole by TriggerRoutes, so a reader
 * holding a table never sees one half built. Tenants never share a trie: a
 * route of tenant A cannot answer a request made for tenant B.
 */
import type { RouteTrie } from "./route-trie.ts";
import { segmentsOf } from "./route-trie.ts";

/** The definition a route starts: its key and the published version that declares the trigger. */
export interface RouteTarget {
  key: string;
  version: number;
  /** The template as declared, e.g. "/orders/{id}". */
  path: string;
  /** The definition has a `respond` state: the request may wait for its answer. */
  responds: boolean;
}

export type RouteMatch =
  | { kind: "match"; target: RouteTarget; params: Record<string, string> }
  /** The path has routes, none for this method: a 405 listing `allow`. */
  | { kind: "method"; allow: string[] }
  | { kind: "none" };

const NONE: RouteMatch = { kind: "none" };

export class RouteTable {
  constructor(private readonly tenants: ReadonlyMap<string, RouteTrie<RouteTarget>>) {}

  static empty(): RouteTable {
    return new RouteTable(new Map());
  }

  /** How many routes, over all tenants. */
  get size(): number {
    let n = 0;
    for (const trie of this.tenants.values()) n += trie.size;
    return n;
  }

  /** The tenants' tries, for a copy that replaces one tenant's. */
  entries(): IterableIterator<[string, RouteTrie<RouteTarget>]> {
    return this.tenants.entries();
  }

  /**
   * `segments` are the request path's, already percent-decoded
   * (see requestSegments); `method` in upper case.
   */
  match(tenantId: string, method: string, segments: readonly string[]): RouteMatch {
    const trie = this.tenants.get(tenantId);
    if (trie === undefined) return NONE;
    const found = trie.match(method, segments);
    if (found === undefined) {
      const allow = trie.methodsAt(segments);
      return allow.length === 0 ? NONE : { kind: "method", allow };
    }
    const params: Record<string, string> = {};
    found.route.paramNames.forEach((name, i) => (params[name] = found.paramValues[i] ?? ""));
    return { kind: "match", target: found.route.value, params };
  }
}

/**
 * A request path's segments, each percent-decoded; null when a segment is not
 * valid percent-encoding (the caller answers 400).
 */
export function requestSegments(path: string): string[] | null {
  const out: string[] = [];
  for (const raw of segmentsOf(path)) {
    if (!raw.includes("%")) {
      out.push(raw);
      continue;
    }
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return out;
}
