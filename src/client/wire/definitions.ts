/** Definitions and their versions as the REST API sends them (docs/api.md, Definitions). */
import type { IsoTime } from "./common.ts";

export interface Definition {
  id: string;
  key: string;
  name: string;
  createdAt: IsoTime;
}

export type VersionStatus = "draft" | "published" | "retracted";

/** A version without its document (lists, draft save, publish, retract). */
export interface VersionSummary {
  key: string;
  /** 0 is the draft; published versions count from 1. */
  version: number;
  status: VersionStatus;
  /** Saved (draft) or published. */
  createdAt: IsoTime;
  publishedAt: IsoTime | null;
  /** Who saved (draft: last) or published it. */
  createdBy: string;
}

/** A version with its definition document (GET /v1/definitions/schema describes it). */
export interface DefinitionVersion extends VersionSummary {
  definition: unknown;
}

export interface DiffChange {
  /** A JSON pointer into the definition. */
  pointer: string;
  op: "add" | "remove" | "replace";
  /** The old value (remove, replace). */
  from?: unknown;
  /** The new value (add, replace). */
  to?: unknown;
}

/** `GET /v1/definitions/{key}/diff`: what changed from one version to another. */
export interface DefinitionDiff {
  from: number;
  to: number;
  changes: DiffChange[];
}

/** `POST /v1/definitions/validate`: a valid document, and which checks publish still makes. */
export interface DefinitionValidation {
  valid: true;
  notChecked: ("steps" | "workflows" | "definitions")[];
}
