/**
 * Opaque tokens inside one process: records by id, an index from the
 * secret's SHA-256 to the id. Each call runs without awaiting in between, so
 * two rotations of one token in this process cannot both win.
 */
import type {
  IssueTokenOptions,
  IssuedToken,
  OpaqueTokens,
  RotateOutcome,
  TokenInfo,
  TokenListing,
} from "../../../engine/coordination/opaque-tokens-port.ts";
import { checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { newId, newTokenSecret, sha256Hex } from "../secrets.ts";
import {
  checkIssue,
  checkPresented,
  forgetAt,
  isExpired,
  isLive,
  listingState,
  type TokenState,
} from "../token-rules.ts";

interface TokenRecord {
  info: TokenInfo;
  tenant: string;
  hash: string;
  ttlMs: number | undefined;
  retiredAt: number | null;
  revokedAt: number | null;
}

export function memoryOpaqueTokens(_ctx: MemoryContext): OpaqueTokens {
  const byId = new Map<string, TokenRecord>();
  const idByHash = new Map<string, string>();

  const issueIn = (tenant: string, o: IssueTokenOptions, familyId: string): IssuedToken => {
    const data = JSON.parse(checkIssue(tenant, o)) as TokenInfo["data"];
    const token = newTokenSecret();
    const now = Date.now();
    const info: TokenInfo = {
      id: newId(),
      familyId,
      purpose: o.purpose,
      subject: o.subject,
      data,
      createdAt: new Date(now),
      expiresAt: o.ttlMs === undefined ? null : new Date(now + o.ttlMs),
    };
    const hash = sha256Hex(token);
    byId.set(info.id, { info, tenant, hash, ttlMs: o.ttlMs, retiredAt: null, revokedAt: null });
    idByHash.set(hash, info.id);
    return { ...info, token };
  };
  const find = (tenant: string, purpose: string, token: string) => {
    const id = idByHash.get(sha256Hex(token));
    const r = id === undefined ? undefined : byId.get(id);
    return r !== undefined && r.tenant === tenant && r.info.purpose === purpose ? r : undefined;
  };
  const stateOf = (r: TokenRecord): TokenState => ({
    expiresAt: r.info.expiresAt?.getTime() ?? null,
    retiredAt: r.retiredAt,
    revokedAt: r.revokedAt,
  });
  const expired = (r: TokenRecord) => isExpired(stateOf(r), Date.now());
  const live = (r: TokenRecord) => isLive(stateOf(r), Date.now());
  const revokeFamily = (tenant: string, familyId: string) => {
    let n = 0;
    const now = Date.now();
    for (const r of byId.values()) {
      if (r.tenant === tenant && r.info.familyId === familyId && r.revokedAt === null) {
        r.revokedAt = now;
        n++;
      }
    }
    return n;
  };

  // Every method rejects on bad input, as on every backend (never a synchronous throw).
  const later = <T>(fn: () => T): Promise<T> => Promise.resolve().then(fn);
  return {
    issue(tenant, options) {
      return later(() => issueIn(tenant, options, newId()));
    },
    verify(tenant, purpose, token) {
      return later(() => {
        checkPresented(tenant, purpose, token);
        const r = find(tenant, purpose, token);
        return r !== undefined && live(r) ? r.info : null;
      });
    },
    revoke(tenant, purpose, tokenOrId) {
      return later(() => {
        checkPresented(tenant, purpose, tokenOrId);
        const byKey = byId.get(tokenOrId);
        const r =
          byKey !== undefined && byKey.tenant === tenant && byKey.info.purpose === purpose
            ? byKey
            : find(tenant, purpose, tokenOrId);
        if (r === undefined || !live(r)) return false;
        r.revokedAt = Date.now();
        return true;
      });
    },
    revokeFamily(tenant, familyId) {
      return later(() => {
        checkTenant(tenant);
        checkKey("familyId", familyId);
        return revokeFamily(tenant, familyId);
      });
    },
    rotate(tenant, purpose, token, ttlMs) {
      return later((): RotateOutcome => {
        checkPresented(tenant, purpose, token);
        const r = find(tenant, purpose, token);
        if (r === undefined || expired(r)) return { outcome: "invalid" };
        if (r.retiredAt !== null || r.revokedAt !== null) {
          revokeFamily(tenant, r.info.familyId);
          return { outcome: "reused" };
        }
        const { subject, data } = r.info;
        const next = issueIn(
          tenant,
          { purpose, subject, data, ttlMs: ttlMs ?? r.ttlMs },
          r.info.familyId,
        );
        r.retiredAt = Date.now();
        return { outcome: "rotated", next };
      });
    },
    list(tenant, purpose) {
      return later(() => {
        checkTenant(tenant);
        checkKey("purpose", purpose);
        return [...byId.values()]
          .filter((r) => r.tenant === tenant && r.info.purpose === purpose)
          .map((r): TokenListing => ({ ...r.info, state: listingState(stateOf(r), Date.now()) }))
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      });
    },
    cleanup(maxEntries) {
      return later(() => {
        checkPoints("maxEntries", maxEntries);
        const now = Date.now();
        let removed = 0;
        for (const [id, r] of byId) {
          if (removed >= maxEntries) break;
          const forget = forgetAt(stateOf(r));
          if (forget !== null && forget <= now) {
            byId.delete(id);
            idByHash.delete(r.hash);
            removed++;
          }
        }
        return removed;
      });
    },
  };
}
