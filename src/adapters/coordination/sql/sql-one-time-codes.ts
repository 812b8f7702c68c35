/**
 * One-time codes in the store's database: one row per (tenant, slot), see
 * migration 007, holding the code only as HMAC-SHA-256 under a per-code salt
 * (secrets.ts says why that and no more). Every guess reads the row, compares hashes in this process
 * (constant time) and then writes with a conditional statement whose
 * affected-row count decides the outcome:
 *
 * - wrong: `attempts = attempts + 1 … WHERE attempts < max_attempts`, so 50
 *   concurrent wrong guesses against a cap of 5 move the count to 5, never 6;
 * - right: `DELETE … WHERE attempts < max_attempts`, so of two concurrent right
 *   guesses one deletes the row and the other finds nothing.
 *
 * Both statements also name the salt the guess was checked against: a code
 * issued between the read and the write (a new salt) is not touched by a
 * guess at the old one.
 */
import { sql } from "kysely";
import type { SqlContext } from "../coordination-context.ts";
import type {
  IssueCodeOptions,
  IssuedCode,
  OneTimeCodes,
  VerifyOutcome,
} from "../../../engine/coordination/one-time-codes-port.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter-port.ts";
import { checkPoints } from "../check-input.ts";
import { checkCodeRequest, codeIssueLimiter, codeSettings } from "../code-rules.ts";
import { codeSlot } from "../code-slot.ts";
import { codeHash, newCode, newSalt, sameDigest } from "../secrets.ts";

const TABLE = "coordination_codes";

interface CodeRow {
  salt: string;
  code_hash: string;
  attempts: number;
  max_attempts: number;
  expires_at: number | string;
}

export function sqlOneTimeCodes(ctx: SqlContext, limiters: RateLimiters): OneTimeCodes {
  const issueBudget = codeIssueLimiter(limiters);
  const { db } = ctx;

  const read = (tenant: string, slot: string): Promise<CodeRow | undefined> =>
    db
      .selectFrom(TABLE)
      .select(["salt", "code_hash", "attempts", "max_attempts", "expires_at"])
      .where("tenant_id", "=", tenant)
      .where("slot", "=", slot)
      .executeTakeFirst();

  /** What a guess at `salt` finds once its own write lost a race. */
  const settle = async (tenant: string, slot: string, salt: string): Promise<VerifyOutcome> => {
    const row = await read(tenant, slot);
    if (row === undefined || row.salt !== salt) return "none";
    return outcomeOf(row, Date.now()) ?? "none";
  };

  return {
    async issue(tenant, subject, purpose, options: IssueCodeOptions = {}): Promise<IssuedCode> {
      checkCodeRequest(tenant, subject, purpose);
      const settings = codeSettings(options);
      await issueBudget.take(tenant, subject, purpose);
      const slot = codeSlot(ctx.keyPrefix, subject, purpose);
      const code = newCode(settings.digits);
      const salt = newSalt();
      const now = Date.now();
      const fresh = {
        salt,
        code_hash: codeHash(salt, code),
        attempts: 0,
        max_attempts: settings.maxAttempts,
        created_at: now,
        expires_at: now + settings.ttlMs,
      };
      const row = {
        tenant_id: tenant,
        slot,
        key_prefix: ctx.keyPrefix,
        subject,
        purpose,
        ...fresh,
      };
      // One statement: two concurrent issues leave one whole row, never a mix.
      await db
        .insertInto(TABLE)
        .values(row)
        .$call((q) =>
          ctx.dialect.upsert === "on-duplicate-key"
            ? q.onDuplicateKeyUpdate(fresh)
            : q.onConflict((oc) => oc.columns(["tenant_id", "slot"]).doUpdateSet(fresh)),
        )
        .execute();
      return { code, expiresAt: new Date(fresh.expires_at) };
    },

    async verify(tenant, subject, purpose, code): Promise<VerifyOutcome> {
      checkCodeRequest(tenant, subject, purpose);
      const slot = codeSlot(ctx.keyPrefix, subject, purpose);
      const row = await read(tenant, slot);
      if (row === undefined) return "none";
      const now = Date.now();
      const blocked = outcomeOf(row, now);
      if (blocked === "expired") {
        await sql`DELETE FROM coordination_codes
          WHERE tenant_id = ${tenant} AND slot = ${slot} AND salt = ${row.salt}`.execute(db);
        return "expired";
      }
      if (blocked !== null) return blocked;
      const thisIssue = sql`tenant_id = ${tenant} AND slot = ${slot} AND salt = ${row.salt}
        AND attempts < max_attempts AND expires_at > ${now}`;
      // A guess that is not a string is a wrong guess, as on every backend.
      const right = typeof code === "string" && sameDigest(codeHash(row.salt, code), row.code_hash);
      const write = right
        ? sql`DELETE FROM coordination_codes WHERE ${thisIssue}`
        : sql`UPDATE coordination_codes SET attempts = attempts + 1 WHERE ${thisIssue}`;
      const { numAffectedRows } = await write.execute(db);
      if (numAffectedRows === 1n) return right ? "ok" : "wrong";
      return settle(tenant, slot, row.salt);
    },

    async cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      // Two statements: MariaDB has no LIMIT in an IN subquery, PostgreSQL no DELETE … LIMIT.
      const doomed = await db
        .selectFrom(TABLE)
        .select(["tenant_id", "slot"])
        .where("key_prefix", "=", ctx.keyPrefix)
        .where("expires_at", "<=", Date.now())
        .limit(maxEntries)
        .execute();
      let removed = 0;
      for (const r of doomed as { tenant_id: string; slot: string }[]) {
        // The expiry is checked again: a code re-issued since the select is live.
        const d = await db
          .deleteFrom(TABLE)
          .where("tenant_id", "=", r.tenant_id)
          .where("slot", "=", r.slot)
          .where("expires_at", "<=", Date.now())
          .executeTakeFirst();
        removed += Number(d.numDeletedRows);
      }
      return removed;
    },
  };
}

/** Why a stored code cannot be guessed now, or null when it can. */
function outcomeOf(row: CodeRow, now: number): "expired" | "exhausted" | null {
  if (Number(row.expires_at) <= now) return "expired";
  if (Number(row.attempts) >= Number(row.max_attempts)) return "exhausted";
  return null;
}
