/**
 * The DefinitionVersionStore with the definition cache in front of it: the
 * engine's one way to definitions (the REST reads, the interpreter's starts
 * and replays, the route tables, publish checks).
 *
 * - reads go through the cache's read path, keyed by the data revision, with
 *   tenant, operation and arguments in the logical key;
 * - writes (draft, publish, retract) run between a fence and its completion
 *   (CacheManager.mutate); publish and retract also hold the definition's
 *   lock `workflow-definition:<tenant>:<key>` from the coordination's Locks —
 *   never the cache provider: payloads and mutual exclusion live apart, and a
 *   Redis that is down for the cache must not look like a free lock;
 * - triggerHeads (every tenant's routes, for a route table rebuild; one
 *   tenant's, for a hook lookup while fenced) always reads the store: a rebuild wants one consistent snapshot, and happens once
 *   per routes revision per node.
 */
import type { DefinitionVersion, VersionSummary } from "../../domain/definition-version.ts";
import { UnavailableError } from "../../domain/unavailable.ts";
import type { Locks } from "../coordination/locks-port.ts";
import { withLock } from "../coordination/with-lock.ts";
import type {
  DefinitionVersionStore,
  PublishedHead,
  PublishOutcome,
  PublishVersion,
  RetractOutcome,
  SaveDraft,
  TenantHead,
} from "../definitions/definition-version-store-port.ts";
import type { CacheManager, CachedRead, PayloadCodec } from "./cache-manager.ts";

/** `undefined` ("no such version") is not JSON: cached as null, which is a hit, not a miss. */
const optionalVersion: PayloadCodec<DefinitionVersion | undefined> = {
  encode: (v) => v ?? null,
  decode: (p) => (p === null ? undefined : (p as DefinitionVersion)),
};

/** Published heads change as a set with every publish; they end by age, like the seed's trigger cache. */
const HEADS_ENTRY = { slidingMs: 0 };

export interface DefinitionLocking {
  readonly locks: Locks;
  /** How long a publish or retract waits for the definition's lock (WF_DEFINITION_LOCK_TIMEOUT). */
  readonly waitMs: number;
}

export class CachedDefinitionStore implements DefinitionVersionStore {
  constructor(
    private readonly store: DefinitionVersionStore,
    private readonly cache: CacheManager,
    private readonly locking: DefinitionLocking,
  ) {}

  saveDraft(cmd: SaveDraft): Promise<void> {
    return this.cache.mutate("workflow", () => this.store.saveDraft(cmd));
  }

  publishVersion(cmd: PublishVersion): Promise<PublishOutcome> {
    return this.underLock(cmd.tenantId, cmd.key, () =>
      this.cache.mutate("workflow", () => this.store.publishVersion(cmd)),
    );
  }

  retractVersion(c: { tenantId: string; key: string; version: number }): Promise<RetractOutcome> {
    return this.underLock(c.tenantId, c.key, () =>
      this.cache.mutate("workflow", () => this.store.retractVersion(c)),
    );
  }

  getVersion(
    tenantId: string,
    key: string,
    version: number,
  ): Promise<DefinitionVersion | undefined> {
    return this.cache.read(
      this.spec(
        tenantId,
        "versions.get",
        "DefinitionVersion|undefined",
        { key, version },
        {
          codec: optionalVersion,
        },
      ),
      () => this.store.getVersion(tenantId, key, version),
    );
  }

  latestPublished(tenantId: string, key: string): Promise<DefinitionVersion | undefined> {
    return this.cache.read(
      this.spec(
        tenantId,
        "versions.latest",
        "DefinitionVersion|undefined",
        { key },
        {
          codec: optionalVersion,
        },
      ),
      () => this.store.latestPublished(tenantId, key),
    );
  }

  listVersions(tenantId: string, key: string): Promise<VersionSummary[]> {
    return this.cache.read<VersionSummary[]>(
      this.spec(tenantId, "versions.list", "Array<VersionSummary>", { key }, {}),
      () => this.store.listVersions(tenantId, key),
    );
  }

  publishedHeads(tenantId: string): Promise<PublishedHead[]> {
    return this.cache.read<PublishedHead[]>(
      this.spec(tenantId, "heads.published", "Array<PublishedHead>", {}, { entry: HEADS_ENTRY }),
      () => this.store.publishedHeads(tenantId),
    );
  }

  triggerHeads(tenantId?: string): Promise<TenantHead[]> {
    return this.store.triggerHeads(tenantId);
  }

  private spec<T>(
    tenant: string,
    operation: string,
    typeName: string,
    args: Record<string, unknown>,
    extra: Pick<CachedRead<T>, "codec" | "entry">,
  ): CachedRead<T> {
    return { view: "data", typeName, logical: { tenant, operation, args }, ...extra };
  }

  private async underLock<T>(tenantId: string, key: string, fn: () => Promise<T>): Promise<T> {
    const name = `workflow-definition:${tenantId}:${key}`;
    const outcome = await withLock(this.locking.locks, tenantId, name, fn, {
      waitMs: this.locking.waitMs,
    });
    if (!outcome.ran) {
      throw new UnavailableError(
        `definition '${key}' is being changed by another request (its lock was held for ` +
          `${this.locking.waitMs} ms, WF_DEFINITION_LOCK_TIMEOUT); try again`,
      );
    }
    return outcome.value;
  }
}
