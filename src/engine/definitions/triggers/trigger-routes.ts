/**
 * This node's trigger routes: the current RouteTable, replaced whole — a
 * lookup reads one reference and never sees a table being built.
 *
 * The table follows the routes revision of the cache ledger
 * (docs/definition-cache.md, Route tables), so a publish or retraction made
 * through ANY node reaches this node's table:
 *
 * - `lookup()` (every hook request) asks the consistency for the routes state
 *   first (strict: one small query; bounded: memory). Unfenced with another
 *   revision than the table's: the whole table is rebuilt aside from one
 *   snapshot (`triggerHeads()`, which always reads the store) and swapped in,
 *   and the request waits for it — a request that starts after a publish
 *   returned sees the publish's routes. Meanwhile other requests keep reading
 *   the old table, which still serves every old route.
 * - Fenced (any tenant's change in progress, or an orphaned fence), the
 *   ledger unreadable, or a rebuild that could not record the revision the
 *   request saw: the table may lack a change that has already returned, so
 *   the request's own tenant is read from the store (store-route-reads.ts),
 *   as every other definition read bypasses the cache then. Nothing is
 *   rebuilt or recorded: a fenced state is never taken for a snapshot's.
 * - one rebuild at a time on this node (single flight): concurrent requests
 *   that see the same new revision wait for one rebuild, not one each.
 * - `refresh()` — after a publish or retraction through this node, awaited
 *   before it answers (DefinitionVersions.onHeadsChanged) — rebuilds from a
 *   snapshot read after the change committed, fenced or not.
 * - a follower (`follow()`) polls the state so an idle node catches up
 *   without waiting for a request.
 *
 * Builds never overlap, so a slower, older read can never replace a newer
 * table: each build starts after the previous one swapped its table in.
 */
import type { CacheConsistency } from "../../definition-cache/cache-consistency.ts";
import type { LedgerState } from "../../definition-cache/cache-ledger-port.ts";
import type { DefinitionVersionStore } from "../definition-version-store-port.ts";
import { compileTenants } from "./compile-route-table.ts";
import type { RouteLookupCache } from "./route-lookup-cache.ts";
import { RouteTable, type RouteMatch } from "./route-table.ts";
import { StoreRouteReads } from "./store-route-reads.ts";

/** triggerHeads(): every tenant's (a rebuild); triggerHeads(tenant): one tenant's (a fenced lookup). */
export type RouteSource = Pick<DefinitionVersionStore, "triggerHeads">;

/** Where a failed rebuild is reported (the table keeps its previous routes). */
export type RefreshFailed = (tenantId: string | null, error: Error) => void;

/** An idle node catches up with other nodes' publishes within this (plus one rebuild). */
export const DEFAULT_FOLLOW_MS = 500;

export interface TriggerRoutesOptions {
  /**
   * Where the routes revision comes from. Without it the table changes only
   * with rebuild() and refresh() (tools and tests that build one table).
   */
  readonly consistency?: Pick<CacheConsistency, "state"> | undefined;
  /** The lookup cache; none: every lookup walks the table. */
  readonly lookupCache?: RouteLookupCache | undefined;
  readonly onError?: RefreshFailed | undefined;
}

/** Counted since start, for tests and the benchmark. */
export interface TriggerRoutesStats {
  /** Snapshots read and swapped in. */
  rebuilds: number;
  /**
   * Lookups that could not trust the table — the state was fenced or could
   * not be read, or the rebuild waited for stayed behind it — and matched
   * their tenant's routes read from the store (no rebuild, no cache, nothing
   * recorded).
   */
  fenced: number;
  lookupHits: number;
  lookupMisses: number;
}

interface Built {
  readonly table: RouteTable;
  /**
   * The routes revision read before the table's snapshot; null when none may
   * be recorded (built while fenced, or without a ledger).
   */
  readonly revision: number | null;
  /** `wanted` when its snapshot read began (see refresh()). */
  readonly epoch: number;
}

export class TriggerRoutes {
  readonly stats: TriggerRoutesStats = { rebuilds: 0, fenced: 0, lookupHits: 0, lookupMisses: 0 };
  private built: Built = { table: RouteTable.empty(), revision: null, epoch: 0 };
  private running: Promise<void> | undefined;
  /** Raised by every refresh(): a refresh needs a table whose snapshot began after it. */
  private wanted = 0;
  private follower: ReturnType<typeof setInterval> | undefined;
  private polling: Promise<void> | undefined;
  private followFailing = false;
  private readonly consistency: Pick<CacheConsistency, "state"> | undefined;
  private readonly cache: RouteLookupCache | undefined;
  private readonly onError: RefreshFailed;
  /** A tenant's routes from the store, for lookups that cannot trust the table. */
  readonly fromStore: StoreRouteReads;

  constructor(
    private readonly source: RouteSource,
    options: TriggerRoutesOptions = {},
  ) {
    this.consistency = options.consistency;
    this.cache = options.lookupCache;
    this.onError = options.onError ?? (() => undefined);
    this.fromStore = new StoreRouteReads((tenantId) => source.triggerHeads(tenantId));
  }

  get table(): RouteTable {
    return this.built.table;
  }

  /** The routes revision the current table was built at; null when none is recorded. */
  get revision(): number | null {
    return this.built.revision;
  }

  /** The current table as it is, without asking the ledger (tools, tests). */
  match(tenantId: string, method: string, segments: readonly string[]): RouteMatch {
    return this.built.table.match(tenantId, method, segments);
  }

  /**
   * A hook request's lookup: the table brought up to the routes revision
   * first (see the header). `path` is the raw path (the cache key),
   * `segments` its decoded segments (what the table matches).
   */
  async lookup(
    tenantId: string,
    method: string,
    path: string,
    segments: readonly string[],
  ): Promise<RouteMatch> {
    const state = await this.routesState().catch(() => UNREADABLE);
    // Without a ledger (tools, tests that build one table) the table is all there is.
    if (state === null) return this.built.table.match(tenantId, method, segments);
    // A change may have returned that the table lacks, and a fenced state is never recorded:
    // the tenant's routes from the store, as every other read bypasses the cache now. An
    // unreadable ledger goes there too; a store that is down as well answers 503.
    if (state.fenced) return this.storeMatch(tenantId, method, segments);
    const built = await this.atLeast(state);
    // The rebuild that would have caught up saw a fence (or failed): the same.
    if (!isAtLeast(built, state.revision)) return this.storeMatch(tenantId, method, segments);
    if (this.cache === undefined || built.revision !== state.revision) {
      return built.table.match(tenantId, method, segments);
    }
    const key = { revision: state.revision, tenantId, method, path };
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.stats.lookupHits++;
      return cached;
    }
    this.stats.lookupMisses++;
    const found = built.table.match(tenantId, method, segments);
    this.cache.set(key, found);
    return found;
  }

  private async storeMatch(
    tenantId: string,
    method: string,
    segments: readonly string[],
  ): Promise<RouteMatch> {
    this.stats.fenced++;
    return (await this.fromStore.table(tenantId)).match(tenantId, method, segments);
  }

  /** Reads every tenant's heads and replaces the whole table (at start). Throws when the store does. */
  async rebuild(): Promise<void> {
    await this.fresh();
  }

  /**
   * After a publish or retraction through this node, awaited before it
   * answers: a table whose snapshot was read after the change committed, so
   * its routes answer here at once. A failure is reported, never thrown (the
   * change has committed); the follower and the next request catch up.
   */
  async refresh(tenantId: string | null = null): Promise<void> {
    try {
      await this.fresh();
    } catch (e) {
      this.onError(tenantId, asError(e));
    }
  }

  /**
   * Polls the routes state every `intervalMs` (unref'd: it never keeps the
   * process alive) and rebuilds when another node moved it. Failures are
   * reported once per outage, not once per poll.
   */
  follow(intervalMs = DEFAULT_FOLLOW_MS): void {
    if (this.follower !== undefined || this.consistency === undefined) return;
    this.follower = setInterval(() => {
      // One poll at a time: a slow ledger never piles polls up.
      this.polling ??= this.poll().finally(() => (this.polling = undefined));
    }, intervalMs);
    this.follower.unref();
  }

  /** Stops the follower and waits for a poll in flight (before the store closes under it). */
  async stop(): Promise<void> {
    if (this.follower !== undefined) clearInterval(this.follower);
    this.follower = undefined;
    await this.polling;
  }

  private async poll(): Promise<void> {
    try {
      const state = await this.consistency!.state("routes");
      if (!state.fenced && !isAtLeast(this.built, state.revision)) await this.atLeast(state, true);
      this.followFailing = false;
    } catch (e) {
      if (!this.followFailing) this.onError(null, asError(e));
      this.followFailing = true;
    }
  }

  /**
   * The table at `state.revision` or newer. At most two rounds: the first may
   * join a rebuild that began before `state` was read (its snapshot may miss
   * the change this request knows of), the second then starts — or joins — one
   * that began after. A fence seen by that second rebuild leaves the current
   * table in place. A request-path failure serves the current table: the old
   * routes still answer, and the start that follows reports the store.
   */
  private async atLeast(state: LedgerState, rethrow = false): Promise<Built> {
    for (let round = 0; round < 2 && !isAtLeast(this.built, state.revision); round++) {
      try {
        await this.once(false, round === 0 ? state : undefined);
      } catch (e) {
        if (rethrow) throw e;
        this.onError(null, asError(e));
        break;
      }
    }
    return this.built;
  }

  /** A table whose snapshot began after this call, built even while fenced. */
  private async fresh(): Promise<void> {
    const wanted = ++this.wanted;
    // Round 1 may join a build that began earlier, or one that skipped for a fence; round 2
    // then starts a forced one (or joins one that began after `wanted`, as good).
    for (let round = 0; round < 3 && this.built.epoch < wanted; round++) await this.once(true);
  }

  /** Joins the rebuild in flight, or starts one: one at a time on this node. */
  private once(force: boolean, state?: LedgerState): Promise<void> {
    this.running ??= this.build(force, state).finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * One snapshot, swapped in whole. `state`, when given, was read just before
   * (a request's own read), saving a query; otherwise it is read here.
   *
   * The revision recorded is the one read BEFORE the snapshot: a change that
   * commits while triggerHeads() reads may or may not be in the snapshot, but
   * it moved the revision past the recorded one, so the next request (or poll)
   * sees a difference and rebuilds again. Recording a revision read after the
   * snapshot could label a table that lacks that change with the change's own
   * revision, and nothing would ever rebuild it.
   */
  private async build(force: boolean, given?: LedgerState): Promise<void> {
    const epoch = this.wanted;
    const before = given ?? (await this.routesState());
    if (!force && (before === null || before.fenced)) return;
    const table = new RouteTable(compileTenants(await this.source.triggerHeads()));
    const fenced = before === null || before.fenced;
    this.built = { table, revision: fenced ? null : before.revision, epoch };
    this.stats.rebuilds++;
  }

  /** The routes state; null without a ledger. Rejects when the ledger cannot be read. */
  private routesState(): Promise<LedgerState | null> {
    return this.consistency === undefined
      ? Promise.resolve(null)
      : this.consistency.state("routes");
  }
}

/** Treated as fenced: nothing is rebuilt or recorded on a state nobody could read; the store answers. */
const UNREADABLE: LedgerState = { revision: 0, fenced: true };

const isAtLeast = (built: Built, revision: number) =>
  built.revision !== null && built.revision >= revision;

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));
