/**
 * One tenant's routes read from the store, for a hook request that cannot
 * trust the node's table: the routes view is fenced (a definition change is
 * between its fence and its completion — in any tenant, or a writer died and
 * left one), the ledger could not be read, or the rebuild the request waited
 * for could not record the revision it saw. Every other definition read
 * bypasses the cache then and reads the store; so does this one, so a route
 * keeps their guarantee: a request that starts after a publish returned is
 * matched against what that publish committed, whoever's fence is open and
 * for however long (docs/definition-cache.md, Route tables).
 *
 * Only the request's tenant is read and compiled: another tenant's publish
 * costs this tenant one indexed query per request, not a whole-table rebuild,
 * and its locks are never waited for (a plain SELECT does not wait for row
 * locks on PostgreSQL or MariaDB).
 *
 * Reads are coalesced per tenant, but never onto a read that began before the
 * request: one read runs per tenant, at most one waits behind it, and every
 * request that arrives while one runs shares the waiting one (which begins
 * after it arrived). A fenced storm of N requests makes at most two reads in
 * flight per tenant instead of N, and none is served a snapshot taken before
 * it began.
 */
import type { TenantHead } from "../definition-version-store-port.ts";
import { compileTenants } from "./compile-route-table.ts";
import { RouteTable } from "./route-table.ts";

/** One tenant's trigger heads, read from the store (never a cached payload). */
export type TenantRouteSource = (tenantId: string) => Promise<TenantHead[]>;

interface Slot {
  readonly running: Promise<RouteTable>;
  /** The read that begins once `running` settles, shared by everyone who arrived meanwhile. */
  next: Promise<RouteTable> | undefined;
}

export class StoreRouteReads {
  private readonly slots = new Map<string, Slot>();
  /** Reads begun, for tests and the benchmark. */
  reads = 0;

  constructor(private readonly source: TenantRouteSource) {}

  /** A table holding only `tenantId`'s routes, from a store read that began after this call. */
  table(tenantId: string): Promise<RouteTable> {
    const slot = this.slots.get(tenantId);
    if (slot === undefined) return this.begin(tenantId);
    // The running read may have begun before this request: wait for the next one.
    slot.next ??= slot.running.then(
      () => this.begin(tenantId),
      () => this.begin(tenantId),
    );
    return slot.next;
  }

  private begin(tenantId: string): Promise<RouteTable> {
    this.reads++;
    const running = this.source(tenantId).then((heads) => new RouteTable(compileTenants(heads)));
    const slot: Slot = { running, next: undefined };
    this.slots.set(tenantId, slot);
    const settled = () => {
      // A queued read replaces the slot itself when it begins.
      if (this.slots.get(tenantId) === slot && slot.next === undefined) {
        this.slots.delete(tenantId);
      }
    };
    running.then(settled, settled);
    return running;
  }
}
