import type { Definition } from "../../domain/definition.ts";
import type { StoreReads } from "./task-store-port.ts";

/** Enough for any realistic number of process types; past it the cache starts over. */
const MAX_ENTRIES = 10_000;

/**
 * Definitions by (tenant, key), kept in memory. Safe because a definition row
 * never changes and is never deleted once committed (nothing in the store
 * updates or deletes `definitions`), so a cached row is what a read would return.
 * Only committed rows may be put here: a definition inserted by a transaction
 * that then rolls back must not be remembered.
 *
 * Named for what it holds — rows known to be committed — so it is not read as
 * the interpreter's DefinitionCache (compiled published versions) or as the
 * ledger-checked definition cache of definition-cache/: nothing here is ever
 * invalidated.
 */
export class KnownDefinitions {
  private readonly byKey = new Map<string, Definition>();

  get(tenantId: string, key: string): Definition | undefined {
    return this.byKey.get(`${tenantId}\u0000${key}`);
  }

  put(d: Definition): void {
    if (this.byKey.size >= MAX_ENTRIES) this.byKey.clear();
    this.byKey.set(`${d.tenantId}\u0000${d.key}`, d);
  }
}

/** From the cache, else a read outside any transaction (committed, so it is cached). */
export async function knownDefinition(
  definitions: KnownDefinitions,
  reads: Pick<StoreReads, "getDefinition">,
  tenantId: string,
  key: string,
): Promise<Definition | undefined> {
  const cached = definitions.get(tenantId, key);
  if (cached) return cached;
  const d = await reads.getDefinition(tenantId, key);
  if (d) definitions.put(d);
  return d;
}
