/**
 * API keys kept in the coordination backend (opaque tokens of purpose
 * `api-key`), so keys can be created, rotated and revoked without
 * redeploying WF_API_KEYS. Only the token's SHA-256 is stored; the secret is
 * handed back once, by create() and rotate().
 *
 * Every key lives in one coordination tenant of its own (SYSTEM_TENANT), not
 * in the tenant it may be scoped to: the server has to find a key before it
 * knows whether the request's tenant is one the key may use.
 *
 * Expiry is kept in the key's data, not as the token's TTL: the tokens port
 * caps a TTL at 30 days (a bound meant for sessions), while API keys commonly
 * live a quarter or a year.
 */
import { taskflowError } from "../../domain/errors.ts";
import { TENANT_PATTERN } from "../../domain/limits.ts";
import type { OpaqueTokens, TokenInfo } from "./opaque-tokens-port.ts";

export const API_KEY_PURPOSE = "api-key";
/** Not a tenant anyone's data lives in; where keys and background-job locks are kept. */
export const SYSTEM_TENANT = "_taskflow";
/**
 * In front of every stored key: it tells a stored key from anything else
 * without I/O (a wrong key of another shape never costs a query) and lets
 * secret scanners recognise a leaked one.
 */
export const API_KEY_PREFIX = "tfk_";
/** The opaque token after the prefix: 32 random bytes in base64url. */
const STORED_KEY_SHAPE = /^tfk_[A-Za-z0-9_-]{43}$/;
const TENANT = new RegExp(TENANT_PATTERN);
/** Names are for people reading `keys list`: printable, one line, short. */
const NAME = /^[^\p{Cc}]{1,128}$/u;

export interface ApiKeyInfo {
  /** Stable id (not the secret); the server names the key `key:<id>`. */
  id: string;
  name: string;
  /** The only tenant the key may act for; null: any tenant. */
  tenant: string | null;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface ApiKeyListing extends ApiKeyInfo {
  state: "live" | "expired" | "retired" | "revoked";
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The secret: shown once, never stored. */
  key: string;
}

export interface CreateApiKeyOptions {
  name: string;
  tenant?: string | null | undefined;
  expiresAt?: Date | null | undefined;
}

export const isStoredKeyShape = (candidate: string): boolean => STORED_KEY_SHAPE.test(candidate);

export class ApiKeys {
  /** `source.tokens` is read at each call: a coordination builds its tokens on first use. */
  constructor(private readonly source: { readonly tokens: OpaqueTokens }) {}

  private get tokens(): OpaqueTokens {
    return this.source.tokens;
  }

  async create(options: CreateApiKeyOptions, now = new Date()): Promise<CreatedApiKey> {
    const { name, tenant = null, expiresAt = null } = options;
    if (!NAME.test(name) || name.trim() === "") {
      throw taskflowError("InvalidApiKeyRequest", {
        detail: "a key name must be 1 to 128 printable characters",
      });
    }
    if (tenant !== null && !TENANT.test(tenant)) {
      throw taskflowError("InvalidApiKeyRequest", {
        detail: `tenant '${tenant.slice(0, 80)}' is not a valid tenant id (${TENANT_PATTERN})`,
      });
    }
    if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
      throw taskflowError("InvalidApiKeyRequest", {
        detail: `the expiry ${expiresAt.toISOString()} is not in the future`,
      });
    }
    const issued = await this.tokens.issue(SYSTEM_TENANT, {
      purpose: API_KEY_PURPOSE,
      subject: name,
      data: { name, tenant, expiresAt: expiresAt?.toISOString() ?? null },
    });
    return { ...infoOf(issued), key: API_KEY_PREFIX + issued.token };
  }

  /** The key's facts when it is live; null for anything else (unknown, revoked, expired, not a key). */
  async verify(candidate: string, now = Date.now()): Promise<ApiKeyInfo | null> {
    if (!isStoredKeyShape(candidate)) return null;
    const secret = candidate.slice(API_KEY_PREFIX.length);
    const token = await this.tokens.verify(SYSTEM_TENANT, API_KEY_PURPOSE, secret);
    if (token === null) return null;
    const info = infoOf(token);
    return expiredAt(info, now) ? null : info;
  }

  /** Every key still kept, newest first; never a secret or a hash. */
  async list(now = Date.now()): Promise<ApiKeyListing[]> {
    const items = await this.tokens.list(SYSTEM_TENANT, API_KEY_PURPOSE);
    return items.map((t) => {
      const info = infoOf(t);
      const state = t.state === "live" && expiredAt(info, now) ? "expired" : t.state;
      return { ...info, state };
    });
  }

  async hasLiveKey(now = Date.now()): Promise<boolean> {
    return (await this.list(now)).some((k) => k.state === "live");
  }

  /** True when a live key was revoked. */
  revoke(id: string): Promise<boolean> {
    return this.tokens.revoke(SYSTEM_TENANT, API_KEY_PURPOSE, id);
  }

  /**
   * A new key with the old one's name, scope and lifetime length (counted from
   * now), then the old one revoked. Null when `id` is no live key.
   */
  async rotate(id: string, now = new Date()): Promise<CreatedApiKey | null> {
    const old = (await this.list(now.getTime())).find((k) => k.id === id && k.state === "live");
    if (old === undefined) return null;
    const lifetime =
      old.expiresAt === null ? null : old.expiresAt.getTime() - old.createdAt.getTime();
    const next = await this.create(
      {
        name: old.name,
        tenant: old.tenant,
        expiresAt: lifetime === null ? null : new Date(now.getTime() + lifetime),
      },
      now,
    );
    await this.revoke(old.id);
    return next;
  }
}

function infoOf(t: TokenInfo): ApiKeyInfo {
  const tenant = t.data.tenant;
  const expires = t.data.expiresAt;
  return {
    id: t.id,
    name: typeof t.data.name === "string" ? t.data.name : t.subject,
    tenant: typeof tenant === "string" ? tenant : null,
    createdAt: t.createdAt,
    expiresAt: typeof expires === "string" ? new Date(expires) : t.expiresAt,
  };
}

const expiredAt = (k: ApiKeyInfo, now: number) =>
  k.expiresAt !== null && k.expiresAt.getTime() <= now;
