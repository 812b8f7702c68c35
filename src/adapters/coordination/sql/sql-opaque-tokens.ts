/**
 * Opaque tokens in the store's database (migration 007): one row per token,
 * found by the SHA-256 of its secret.
 *
 * Rotation retires the presented row with `UPDATE … WHERE retired_at IS NULL
 * AND revoked_at IS NULL` and inserts the next token in the same transaction.
 * Of two concurrent rotations of one token, the second UPDATE waits on the
 * first's row lock (PostgreSQL, MariaDB) or its write transaction (SQLite),
 * then changes nothing: it is the reuse, and the family it revokes already
 * holds the winner's new token, which is committed by then.
 */
import { sql, type Insertable } from "kysely";
import type { SqlContext } from "../coordination-context.ts";
import type { TokensTable } from "./coordination-schema.ts";
import type {
  IssuedToken,
  OpaqueTokens,
  RotateOutcome,
  TokenInfo,
  TokenListing,
} from "../../../engine/coordination/opaque-tokens-port.ts";
import {
  checkIssue,
  checkPresented,
  checkCleanup,
  checkFamily,
  checkScope,
  checkTtl,
  forgetAt,
  isExpired,
  isLive,
  listingState,
  parseData,
  TOKEN_KEEP_MS,
  type TokenState,
} from "../token-rules.ts";
import { newId, newTokenSecret, sha256Hex } from "../secrets.ts";

const TABLE = "coordination_tokens";
/** Ids per DELETE: under SQLite's oldest limit of 999 parameters. */
const DELETE_CHUNK = 500;

interface TokenRow {
  tenant_id: string;
  id: string;
  key_prefix: string;
  family_id: string;
  purpose: string;
  subject: string;
  token_hash: string;
  data: string;
  created_at: number | string;
  expires_at: number | string | null;
  retired_at: number | string | null;
  revoked_at: number | string | null;
  forget_at: number | string | null;
}

/** A row this node writes: its times are numbers. */
type NewTokenRow = TokenRow & Insertable<TokensTable>;

/** What a new row is made from. */
interface TokenRequest {
  purpose: string;
  subject: string;
  ttlMs: number | undefined;
  /** JSON text. */
  data: string;
}

const COLUMNS = [
  "tenant_id",
  "id",
  "key_prefix",
  "family_id",
  "purpose",
  "subject",
  "token_hash",
  "data",
  "created_at",
  "expires_at",
  "retired_at",
  "revoked_at",
  "forget_at",
] as const;

const millisOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

function stateOf(row: TokenRow): TokenState {
  return {
    expiresAt: millisOrNull(row.expires_at),
    retiredAt: millisOrNull(row.retired_at),
    revokedAt: millisOrNull(row.revoked_at),
  };
}

function infoOf(row: TokenRow): TokenInfo {
  const expiresAt = millisOrNull(row.expires_at);
  return {
    id: row.id,
    familyId: row.family_id,
    purpose: row.purpose,
    subject: row.subject,
    data: parseData(row.data),
    createdAt: new Date(Number(row.created_at)),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
  };
}

export function sqlOpaqueTokens(ctx: SqlContext): OpaqueTokens {
  const { db, keyPrefix } = ctx;

  const newRow = (
    tenant: string,
    familyId: string,
    request: TokenRequest,
    now: number,
  ): { row: NewTokenRow; token: string } => {
    const token = newTokenSecret();
    const expiresAt = request.ttlMs === undefined ? null : now + request.ttlMs;
    const row: NewTokenRow = {
      tenant_id: tenant,
      id: newId(),
      key_prefix: keyPrefix,
      family_id: familyId,
      purpose: request.purpose,
      subject: request.subject,
      token_hash: sha256Hex(token),
      data: request.data,
      created_at: now,
      expires_at: expiresAt,
      retired_at: null,
      revoked_at: null,
      forget_at: forgetAt({ expiresAt, retiredAt: null, revokedAt: null }),
    };
    return { row, token };
  };

  const issued = (row: TokenRow, token: string): IssuedToken => ({ ...infoOf(row), token });

  const byHash = (tenant: string, purpose: string, token: string): Promise<TokenRow | undefined> =>
    db
      .selectFrom(TABLE)
      .select(COLUMNS)
      .where("token_hash", "=", sha256Hex(token))
      .where("tenant_id", "=", tenant)
      .where("key_prefix", "=", keyPrefix)
      .where("purpose", "=", purpose)
      .executeTakeFirst();

  const revokeFamilyAt = async (tenant: string, familyId: string, now: number) => {
    const r = await sql`UPDATE coordination_tokens
      SET revoked_at = ${now}, forget_at = ${now + TOKEN_KEEP_MS}
      WHERE tenant_id = ${tenant} AND key_prefix = ${keyPrefix} AND family_id = ${familyId}
        AND revoked_at IS NULL`.execute(db);
    return Number(r.numAffectedRows ?? 0n);
  };

  /** Reuse: the whole family is revoked, the presenter told so. */
  const reused = async (tenant: string, familyId: string): Promise<RotateOutcome> => {
    await revokeFamilyAt(tenant, familyId, Date.now());
    return { outcome: "reused" };
  };

  /** Retires `row` and inserts `next` together; false when another rotation or a revoke came first. */
  const retireAndIssue = (row: TokenRow, next: NewTokenRow, now: number) =>
    db.transaction().execute(async (trx) => {
      const r = await sql`UPDATE coordination_tokens
        SET retired_at = ${now}, forget_at = ${now + TOKEN_KEEP_MS}
        WHERE tenant_id = ${row.tenant_id} AND id = ${row.id}
          AND retired_at IS NULL AND revoked_at IS NULL
          AND (expires_at IS NULL OR expires_at > ${now})`.execute(trx);
      if (r.numAffectedRows !== 1n) return false;
      await trx.insertInto(TABLE).values(next).execute();
      return true;
    });

  return {
    async issue(tenant, options) {
      const data = checkIssue(tenant, options);
      const { purpose, subject, ttlMs } = options;
      const request = { purpose, subject, ttlMs, data };
      const { row, token } = newRow(tenant, newId(), request, Date.now());
      await db.insertInto(TABLE).values(row).execute();
      return issued(row, token);
    },

    async verify(tenant, purpose, token) {
      checkPresented(tenant, purpose, token);
      const row = await byHash(tenant, purpose, token);
      return row !== undefined && isLive(stateOf(row), Date.now()) ? infoOf(row) : null;
    },

    async revoke(tenant, purpose, tokenOrId) {
      checkPresented(tenant, purpose, tokenOrId);
      const now = Date.now();
      const r = await sql`UPDATE coordination_tokens
        SET revoked_at = ${now}, forget_at = ${now + TOKEN_KEEP_MS}
        WHERE tenant_id = ${tenant} AND key_prefix = ${keyPrefix} AND purpose = ${purpose}
          AND (token_hash = ${sha256Hex(tokenOrId)} OR id = ${tokenOrId})
          AND revoked_at IS NULL AND retired_at IS NULL
          AND (expires_at IS NULL OR expires_at > ${now})`.execute(db);
      return Number(r.numAffectedRows ?? 0n) > 0;
    },

    async revokeFamily(tenant, familyId) {
      checkFamily(tenant, familyId);
      return revokeFamilyAt(tenant, familyId, Date.now());
    },

    async rotate(tenant, purpose, token, ttlMs): Promise<RotateOutcome> {
      checkPresented(tenant, purpose, token);
      checkTtl(ttlMs);
      const row = await byHash(tenant, purpose, token);
      const now = Date.now();
      // Expired first, as in memory: an expired token is invalid even when it was also retired.
      if (row === undefined || isExpired(stateOf(row), now)) return { outcome: "invalid" };
      if (!isLive(stateOf(row), now)) return reused(tenant, row.family_id);
      const request: TokenRequest = {
        purpose: row.purpose,
        subject: row.subject,
        ttlMs: ttlMs ?? lifetimeOf(row),
        data: row.data,
      };
      const next = newRow(tenant, row.family_id, request, now);
      if (await retireAndIssue(row, next.row, now)) {
        return { outcome: "rotated", next: issued(next.row, next.token) };
      }
      // Lost to a concurrent rotation or revoke (reuse), or the token expired meanwhile.
      const after = await byHash(tenant, purpose, token);
      if (after === undefined || isExpired(stateOf(after), Date.now())) {
        return { outcome: "invalid" };
      }
      return reused(tenant, row.family_id);
    },

    async list(tenant, purpose): Promise<TokenListing[]> {
      checkScope(tenant, purpose);
      const rows: TokenRow[] = await db
        .selectFrom(TABLE)
        .select(COLUMNS)
        .where("tenant_id", "=", tenant)
        .where("key_prefix", "=", keyPrefix)
        .where("purpose", "=", purpose)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
      const now = Date.now();
      return rows.map((row) => ({ ...infoOf(row), state: listingState(stateOf(row), now) }));
    },

    async cleanup(maxEntries) {
      const limit = checkCleanup(maxEntries);
      // Two statements: MariaDB has no LIMIT in an IN subquery, PostgreSQL no DELETE … LIMIT.
      const doomed: Pick<TokenRow, "tenant_id" | "id">[] = await db
        .selectFrom(TABLE)
        .select(["tenant_id", "id"])
        .where("key_prefix", "=", keyPrefix)
        .where("forget_at", "<=", Date.now())
        .limit(limit)
        .execute();
      let removed = 0;
      for (const [tenant, ids] of byTenant(doomed)) {
        for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
          const r = await db
            .deleteFrom(TABLE)
            .where("tenant_id", "=", tenant)
            .where("id", "in", ids.slice(i, i + DELETE_CHUNK))
            .executeTakeFirst();
          removed += Number(r.numDeletedRows);
        }
      }
      return removed;
    },
  };
}

/** Rotation without a TTL keeps the presented token's lifetime (none stays none). */
function lifetimeOf(row: TokenRow): number | undefined {
  return row.expires_at === null ? undefined : Number(row.expires_at) - Number(row.created_at);
}

function byTenant(rows: readonly Pick<TokenRow, "tenant_id" | "id">[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of rows) {
    const ids = groups.get(r.tenant_id) ?? [];
    ids.push(r.id);
    groups.set(r.tenant_id, ids);
  }
  return groups;
}
