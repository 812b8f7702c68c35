/**
 * The definition-version store port: reads, and one command per use case
 * that the store applies atomically and reports on (the style of
 * ../human-tasks/task-store-port.ts). The engine validates before it
 * commands; the store never parses a body except to write the published
 * number into it.
 *
 * Glossary
 * - key: a definition's name inside a tenant; its versions are numbered.
 * - draft: version 0, the one editable text of a key; saving overwrites it.
 * - version: a published number, max + 1 of the key's, never reused or
 *   skipped; its body never changes once written.
 * - published head: the highest version of a key still `published`; what new
 *   starts use (runs stay pinned to the version they started on).
 * - retract: marks a version retracted; new starts skip it, running ones keep it.
 * - trigger head: a head that declares triggers; a node's route table is
 *   compiled from these.
 */
import type { DefinitionVersion, VersionSummary } from "../../domain/definition-version.ts";

export interface SaveDraft {
  tenantId: string;
  key: string;
  /** The definition as JSON text. */
  body: string;
  createdBy: string;
  at: number;
}

export interface PublishVersion {
  tenantId: string;
  key: string;
  /** For the plain definition row, created unless the key has one. */
  name: string;
  /** The definition; stored with `version` set to the number it gets. */
  definition: Record<string, unknown>;
  createdBy: string;
  at: number;
  /**
   * Publishing the draft: it is deleted in the same transaction, and only if
   * it is still this text — a draft saved meanwhile is never lost.
   */
  consumesDraft?: { body: string } | undefined;
  /**
   * Checks across the tenant's definitions, run in the publish's transaction
   * on the heads as they are once the tenant's other publishes are done
   * (they queue on the tenant); throwing rolls the publish back and is its
   * answer.
   */
  checkHeads?: ((heads: PublishedHead[]) => void) | undefined;
  /**
   * Whether the definition is the key's published head over again (the
   * engine's rule), asked in the same transaction after checkHeads, on that
   * fresh head. True: no version is written (a draft being published is
   * still consumed) and the outcome names the head's version, `unchanged`.
   */
  sameAsHead?: ((head: PublishedHead) => boolean) | undefined;
}

/**
 * What a publish did. `unchanged`: the definition was the published head's,
 * no version was written and `version` is the head's. `draft`: the draft was
 * gone or changed, nothing was written.
 */
export type PublishOutcome =
  | { published: true; version: number; unchanged?: true | undefined }
  | { published: false; because: "draft" };

export type RetractOutcome = "retracted" | "already" | "missing";

/** The newest published version of each key of a tenant. */
export interface PublishedHead {
  key: string;
  version: number;
  body: string;
}

/** A published head and its tenant: what a node's trigger route table is compiled from. */
export interface TenantHead extends PublishedHead {
  tenantId: string;
}

export interface DefinitionVersionStore {
  /** Inserts or overwrites the key's one draft. */
  saveDraft(cmd: SaveDraft): Promise<void>;
  /**
   * Number max + 1 of the key's versions, never reused and never skipped,
   * however many publishes of the key run at once.
   */
  publishVersion(cmd: PublishVersion): Promise<PublishOutcome>;
  /** Marks a published version retracted; `missing` for none (or the draft). */
  retractVersion(c: { tenantId: string; key: string; version: number }): Promise<RetractOutcome>;
  /** One version (0: the draft). */
  getVersion(
    tenantId: string,
    key: string,
    version: number,
  ): Promise<DefinitionVersion | undefined>;
  /** The highest version with status `published` (retracted ones are skipped). */
  latestPublished(tenantId: string, key: string): Promise<DefinitionVersion | undefined>;
  /** The draft (if any) and every version, in number order. */
  listVersions(tenantId: string, key: string): Promise<VersionSummary[]>;
  /** Every key's newest published version, for checks across definitions. */
  publishedHeads(tenantId: string): Promise<PublishedHead[]>;
  /** Every tenant's (or one tenant's) heads that declare triggers (possibly a few more), by tenant and key. */
  triggerHeads(tenantId?: string): Promise<TenantHead[]>;
}
