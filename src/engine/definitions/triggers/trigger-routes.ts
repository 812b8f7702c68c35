/**
 * This node's trigger routes: the current RouteTable, replaced whole — a
 * lookup reads one reference and never sees a table being built.
 *
 * - `rebuild()` reads every tenant's heads from the store and swaps in a new
 *   table: at start, and the seam for following other nodes' publishes (a
 *   node that sees the store's tenant revisions move calls it, or
 *   `refreshTenant` for the tenants that moved).
 * - `refreshTenant()` re-reads one tenant after a publish or retract on this
 *   node (DefinitionVersions.onHeadsChanged) and swaps in a copy of the table
 *   with that tenant's trie replaced.
 *
 * Reads may finish out of order; each carries a ticket taken before it reads,
 * and a tenant's trie is only replaced by a read that started after the one
 * that built it — a slow, older read never undoes a newer one.
 */
import type { DefinitionVersionStore } from "../definition-version-store.ts";
import { compileTenant, compileTenants } from "./compile-route-table.ts";
import { RouteTable, type RouteMatch } from "./route-table.ts";
import type { RouteTrie } from "./route-trie.ts";
import type { RouteTarget } from "./route-table.ts";

export type RouteSource = Pick<DefinitionVersionStore, "publishedHeads" | "triggerHeads">;

/** Where a failed refresh is reported (the table keeps its previous routes). */
export type RefreshFailed = (tenantId: string | null, error: Error) => void;

export class TriggerRoutes {
  private current = RouteTable.empty();
  private tickets = 0;
  /** The ticket of the read each tenant's trie (or its absence) comes from. */
  private readonly builtBy = new Map<string, number>();
  /** The ticket of the last whole rebuild applied. */
  private rebuiltBy = 0;

  constructor(
    private readonly source: RouteSource,
    private readonly onError: RefreshFailed = () => undefined,
  ) {}

  get table(): RouteTable {
    return this.current;
  }

  match(tenantId: string, method: string, segments: readonly string[]): RouteMatch {
    return this.current.match(tenantId, method, segments);
  }

  /** Reads every tenant's heads and replaces the whole table. Throws when the store does. */
  async rebuild(): Promise<void> {
    const ticket = ++this.tickets;
    const tenants = compileTenants(await this.source.triggerHeads());
    if (ticket < this.rebuiltBy) return;
    const next = new Map<string, RouteTrie<RouteTarget>>();
    // A tenant refreshed by a read newer than this one keeps that read's trie.
    for (const [tenantId, trie] of this.current.entries()) {
      if ((this.builtBy.get(tenantId) ?? 0) > ticket) next.set(tenantId, trie);
    }
    for (const [tenantId, trie] of tenants) {
      if ((this.builtBy.get(tenantId) ?? 0) > ticket) continue;
      next.set(tenantId, trie);
    }
    for (const [tenantId, t] of this.builtBy) if (t <= ticket) this.builtBy.delete(tenantId);
    this.rebuiltBy = ticket;
    this.current = new RouteTable(next);
  }

  /** Re-reads one tenant; a failure is reported, never thrown (the publish has committed). */
  async refreshTenant(tenantId: string): Promise<void> {
    const ticket = ++this.tickets;
    let trie: RouteTrie<RouteTarget>;
    try {
      trie = compileTenant(await this.source.publishedHeads(tenantId));
    } catch (e) {
      this.onError(tenantId, e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (ticket < Math.max(this.builtBy.get(tenantId) ?? 0, this.rebuiltBy)) return;
    const next = new Map(this.current.entries());
    if (trie.size > 0) next.set(tenantId, trie);
    else next.delete(tenantId);
    this.builtBy.set(tenantId, ticket);
    this.current = new RouteTable(next);
  }
}
