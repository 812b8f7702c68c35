/**
 * From the published heads (the newest published, not retracted, version of
 * each key) to tries. A head without triggers adds nothing. Heads are taken in
 * key order, so when two keys claim one route — which publishing refuses, but
 * a retraction can bring an older version with a taken route back to the head
 * — the same key wins on every node.
 */
import type { PublishedHead, TenantHead } from "../definition-version-store-port.ts";
import { RouteTrie } from "./route-trie.ts";
import type { RouteTarget } from "./route-table.ts";

export function compileTenant(heads: readonly PublishedHead[]): RouteTrie<RouteTarget> {
  const trie = new RouteTrie<RouteTarget>();
  const sorted = [...heads].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const h of sorted) {
    // Only these make a hook request wait: the others are answered 202 at once.
    const responds = h.body.includes('"type":"respond"');
    for (const t of triggersOf(h.body)) {
      const target = { key: h.key, version: h.version, path: t.path, responds };
      trie.add(t.method.toUpperCase(), t.path, target);
    }
  }
  return trie;
}

/** Heads of many tenants, grouped; tenants whose heads declare no trigger are left out. */
export function compileTenants(heads: readonly TenantHead[]): Map<string, RouteTrie<RouteTarget>> {
  const byTenant = new Map<string, TenantHead[]>();
  for (const h of heads) {
    const list = byTenant.get(h.tenantId);
    if (list === undefined) byTenant.set(h.tenantId, [h]);
    else list.push(h);
  }
  const out = new Map<string, RouteTrie<RouteTarget>>();
  for (const [tenantId, list] of byTenant) {
    const trie = compileTenant(list);
    if (trie.size > 0) out.set(tenantId, trie);
  }
  return out;
}

/** The body was validated when it was published; anything else is skipped rather than trusted. */
function triggersOf(body: string): { method: string; path: string }[] {
  const doc = JSON.parse(body) as { triggers?: unknown };
  if (!Array.isArray(doc.triggers)) return [];
  return doc.triggers.filter(
    (t): t is { method: string; path: string } =>
      typeof t === "object" &&
      t !== null &&
      typeof (t as { method?: unknown }).method === "string" &&
      typeof (t as { path?: unknown }).path === "string",
  );
}
