/**
 * A version of a process definition (docs/definitions.md, Versions): per
 * tenant and key, at most one draft (version 0, overwritten by each save) and
 * published versions 1, 2, 3 … that never change; a published version can be
 * retracted (no new runs start on it; running ones finish).
 */
export type VersionStatus = "draft" | "published" | "retracted";

/** The draft's number: it has none of its own until it is published. */
export const DRAFT_VERSION = 0;

export interface DefinitionVersion {
  tenantId: string;
  key: string;
  /** 0 for the draft; 1, 2, … for published and retracted versions. */
  version: number;
  status: VersionStatus;
  /** The definition document, as JSON text (published ones carry their number in `version`). */
  body: string;
  /** When it was saved (the draft: last saved) or published. */
  createdAt: number;
  publishedAt: number | null;
  /** Who saved it (the draft: last) or published it. */
  createdBy: string;
}

/** A version without its body, for lists. */
export type VersionSummary = Omit<DefinitionVersion, "body">;
