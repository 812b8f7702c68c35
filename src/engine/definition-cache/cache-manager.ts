/**
 * The definition cache's read path and write path — the one place that
 * decides whether a payload may be served, filled, or must be bypassed.
 *
 * Read (`read`):
 *   1. caching off, or the caller is inside a store transaction → the
 *      factory (the store read), nothing filled: a transaction may see rows
 *      no other node can, and may still roll back;
 *   2. the view's state (revision, fenced) from the consistency mode;
 *   3. fenced → bypass: the factory, nothing filled;
 *   4. the key is built with the deployment id and the revision (cache-key.ts);
 *   5. a hit (a cached null is a hit) → served;
 *   6. a miss → the factory, once per key on this node (single flight);
 *   7. the state again: filled only if the revision is the same and no fence
 *      appeared. A reader that read the store before a change and finishes
 *      after it returns what it read, but never plants it for later readers.
 *
 * Write (`mutate`): a fence is begun before the store is touched — never
 * inside the store's transaction, so every node sees it at once; the write
 * runs (its own transaction); the fence is completed after the write's real
 * outcome is known, committed or rolled back — both move the revision. A
 * write whose outcome is in doubt (the database went away during it) leaves
 * its fence open: completing it while the transaction may still commit would
 * let readers cache the old rows under the new revision. The reaper completes
 * such a fence once it is older than WF_DEFINITION_FENCE_MAX_AGE.
 *
 * The completion is not tied to the request: a caller that goes away after
 * the write committed does not leave the fence open.
 */
import { isUnavailable } from "../../domain/unavailable.ts";
import type { CacheConsistency } from "./cache-consistency.ts";
import { cacheKey, type LogicalKey } from "./cache-key.ts";
import type { CacheLedger, CacheScope, MutationFence, RevisionView } from "./cache-ledger-port.ts";
import type { CacheEntryOptions, CacheProvider, CacheWarnLog } from "./cache-provider-port.ts";
import { SingleFlight } from "./single-flight.ts";

export interface CachedRead<T> {
  /** Which revision keys the entry: `data` for definition reads, `routes` for route lookups. */
  readonly view: RevisionView;
  /** The full name of the result's type, e.g. "DefinitionVersion|null". */
  readonly typeName: string;
  readonly logical: LogicalKey;
  /** Expiry for this consumer; the provider's defaults when absent. */
  readonly entry?: CacheEntryOptions | undefined;
  /** True inside a store transaction: the factory runs and nothing is cached. */
  readonly inTransaction?: boolean | undefined;
  /** JSON ⇄ T, when T is not JSON itself (e.g. undefined for "none", which JSON cannot hold). */
  readonly codec?: PayloadCodec<T> | undefined;
}

export interface PayloadCodec<T> {
  encode(value: T): unknown;
  decode(payload: unknown): T;
}

/** What the read path did, counted since start (for tests, /metrics and the benchmark). */
export interface CacheStats {
  hits: number;
  misses: number;
  /** Reads that skipped the cache: fenced, off, or inside a transaction. */
  bypasses: number;
  /** Misses that joined another reader's factory instead of running their own. */
  joined: number;
  fills: number;
  /** Factory results not written because the revision moved or a fence appeared meanwhile. */
  staleFills: number;
  /** Fences left open because the write's outcome was in doubt. */
  inDoubt: number;
}

export interface CacheManagerOptions {
  readonly provider: CacheProvider;
  readonly ledger: CacheLedger;
  readonly consistency: CacheConsistency;
  /** WF_DEFINITION_CACHE_ENABLED: false → every read is the factory (the ledger still runs). */
  readonly enabled: boolean;
  readonly prefix: string;
  /** The deployment's identity, in every key (asked at each key: it is read after the migration). */
  readonly deployment: () => string;
  /** host/pid/boot id, written into the fences this node begins. */
  readonly owner: string;
  readonly log: CacheWarnLog;
}

export class CacheManager {
  readonly stats: CacheStats = {
    hits: 0,
    misses: 0,
    bypasses: 0,
    joined: 0,
    fills: 0,
    staleFills: 0,
    inDoubt: 0,
  };
  private readonly flights = new SingleFlight();

  constructor(private readonly o: CacheManagerOptions) {}

  get consistency(): CacheConsistency {
    return this.o.consistency;
  }

  get provider(): CacheProvider {
    return this.o.provider;
  }

  async read<T>(r: CachedRead<T>, factory: () => Promise<T>): Promise<T> {
    if (!this.o.enabled || r.inTransaction === true) {
      this.stats.bypasses++;
      return factory();
    }
    const before = await this.o.consistency.state(r.view);
    if (before.fenced) {
      this.stats.bypasses++;
      return factory();
    }
    const key = cacheKey({
      prefix: this.o.prefix,
      deployment: this.o.deployment(),
      revision: before.revision,
      typeName: r.typeName,
      logical: r.logical,
    });
    const found = await this.o.provider.get(key);
    if (found.hit) {
      this.stats.hits++;
      return r.codec ? r.codec.decode(found.value) : (found.value as T);
    }
    this.stats.misses++;
    const flight = this.flights.run(key, () => this.fill(r, key, before.revision, factory));
    if (flight.joined) this.stats.joined++;
    const payload = await flight.promise;
    // Each caller gets its own copy: the flight's value is shared by every joiner.
    const copy: unknown = flight.joined ? structuredClone(payload) : payload;
    return r.codec ? r.codec.decode(copy) : (copy as T);
  }

  /**
   * Runs `write` between a fence and its completion (see the header). Resolves
   * or rejects as `write` did; a failing completion rejects too (the change is
   * in the store, but caching of the scope stays off until the fence is
   * completed: the reaper or an operator).
   */
  async mutate<T>(scope: CacheScope, write: () => Promise<T>): Promise<T> {
    const fence = await this.o.ledger.beginMutation(scope, this.o.owner);
    await this.o.consistency.changed();
    let result: T;
    try {
      result = await write();
    } catch (e) {
      if (isUnavailable(e)) {
        this.leaveInDoubt(fence, e);
        throw e;
      }
      // Rolled back: nothing changed, but the fence must not stay open.
      await this.complete(fence);
      throw e;
    }
    await this.complete(fence);
    return result;
  }

  async close(): Promise<void> {
    await this.o.consistency.close();
    await this.o.provider.close();
  }

  /** The factory's payload; filled only when the state is still `revision` and unfenced. */
  private async fill<T>(
    r: CachedRead<T>,
    key: string,
    revision: number,
    factory: () => Promise<T>,
  ): Promise<unknown> {
    const value = await factory();
    const payload = r.codec ? r.codec.encode(value) : (value as unknown);
    const after = await this.o.consistency.state(r.view);
    if (after.fenced || after.revision !== revision) {
      this.stats.staleFills++;
      return payload;
    }
    await this.o.provider.set(key, payload, r.entry);
    this.stats.fills++;
    return payload;
  }

  private async complete(fence: MutationFence): Promise<void> {
    await this.o.ledger.completeMutation(fence);
    await this.o.consistency.changed();
  }

  private leaveInDoubt(fence: MutationFence, e: unknown): void {
    this.stats.inDoubt++;
    this.o.log.warn(
      {
        mutationId: fence.mutationId,
        scope: fence.scope,
        cause: e instanceof Error ? e.message : String(e),
      },
      "definition cache: the store went away during a change; its fence stays open until the " +
        "reaper completes it (WF_DEFINITION_FENCE_MAX_AGE) or an operator does",
    );
  }
}
