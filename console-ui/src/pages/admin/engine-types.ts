/** The engine's answers these pages read (docs/api.md), as far as the pages use them. */

export interface DefinitionItem {
  id: string;
  key: string;
  name: string;
  createdAt: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface VersionSummary {
  key: string;
  version: number;
  status: "draft" | "published" | "retracted";
  createdAt: string;
  publishedAt: string | null;
  createdBy: string;
}

export interface VersionDocument extends VersionSummary {
  definition: unknown;
}

export interface DiffChange {
  pointer: string;
  op: "add" | "remove" | "replace";
  from?: unknown;
  to?: unknown;
}

export interface Diff {
  from: number;
  to: number;
  changes: DiffChange[];
}

export interface ApiKeyListing {
  id: string;
  name: string;
  tenant: string | null;
  createdAt: string;
  expiresAt: string | null;
  state: "live" | "expired" | "retired" | "revoked";
}

export interface CreatedApiKey extends Omit<ApiKeyListing, "state"> {
  key: string;
  replaces?: string;
}

export interface TaskView {
  id: string;
  assignee: { kind: string; id: string };
  status: string;
  completedBy: string | null;
  completedAt: string | null;
  vars: Record<string, unknown> | null;
  createdAt: string;
}

export interface InstanceTree {
  id: string;
  kind: "process" | "referral";
  definitionKey: string;
  status: string;
  processState: string | null;
  vars: Record<string, unknown>;
  startedBy: string;
  createdAt: string;
  completedAt: string | null;
  tasks: TaskView[];
  children: InstanceTree[];
}

export interface RunView {
  input: unknown;
}
