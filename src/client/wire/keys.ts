/** Stored API keys as /v1/admin/keys sends them (docs/api.md, API keys). The secret is never listed. */
import type { IsoTime } from "./common.ts";

export interface ApiKeyInfo {
  /** Stable id (not the secret); the server names the key `key:<id>`. */
  id: string;
  name: string;
  /** The only tenant the key may act for; null: any tenant. */
  tenant: string | null;
  createdAt: IsoTime;
  expiresAt: IsoTime | null;
}

export interface ApiKeyListing extends ApiKeyInfo {
  state: "live" | "expired" | "retired" | "revoked";
}

/** A created or rotated key: `key` is the secret, shown this once. */
export interface CreatedApiKey extends ApiKeyInfo {
  key: string;
  /** On rotation: the id of the key this one replaces. */
  replaces?: string;
}

/** `GET /v1/admin/keys`: every key, in one answer (no paging). */
export interface ApiKeyList {
  items: ApiKeyListing[];
}
