/**
 * Published versions as the interpreter reads them: from the version store
 * once, then from an LRU of compiled definitions. Safe to cache without
 * expiry because a published number's body never changes (retracting changes
 * its status, which only new starts look at).
 *
 * Which version is the latest is not kept here: it changes with every
 * publish on any node, and the definition cache in front of the store
 * (CachedDefinitionStore) already answers it from a payload only while the
 * ledger says no change has happened since.
 */
import { LRUCache } from "lru-cache";
import type { DefinitionVersion } from "../../../domain/definition-version.ts";
import type { ProcessDefinition } from "../definition-language.ts";
import type { DefinitionVersionStore } from "../definition-version-store-port.ts";
import { CompiledDefinition } from "./compiled-definition.ts";

const CACHED_VERSIONS = 1_000;

export class DefinitionCache {
  private readonly compiled = new LRUCache<string, CompiledDefinition>({ max: CACHED_VERSIONS });

  constructor(readonly store: DefinitionVersionStore) {}

  /** The latest published version of the key, or undefined. */
  latest(tenantId: string, key: string): Promise<DefinitionVersion | undefined> {
    return this.store.latestPublished(tenantId, key);
  }

  /** The compiled version; a store read only on a cache miss. Throws when there is no such version. */
  async load(tenantId: string, key: string, version: number): Promise<CompiledDefinition> {
    const id = cacheKey(tenantId, key, version);
    const hit = this.compiled.get(id);
    if (hit !== undefined) return hit;
    const v = await this.store.getVersion(tenantId, key, version);
    if (v === undefined || v.version === 0) {
      throw new Error(`definition '${key}' has no version ${version}`);
    }
    return this.remember(v);
  }

  /** Caches a version read elsewhere (a start reads it to check the vars). */
  remember(v: DefinitionVersion): CompiledDefinition {
    const id = cacheKey(v.tenantId, v.key, v.version);
    const hit = this.compiled.get(id);
    if (hit !== undefined) return hit;
    const c = new CompiledDefinition(v.key, v.version, JSON.parse(v.body) as ProcessDefinition);
    this.compiled.set(id, c);
    return c;
  }
}

const cacheKey = (tenantId: string, key: string, version: number) =>
  `${tenantId}\u0000${key}\u0000${version}`;
