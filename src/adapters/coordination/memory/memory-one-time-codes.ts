/**
 * One-time codes inside one process. The record keeps only a salted HMAC of
 * the code (see secrets.ts); a verify runs to completion without awaiting, so
 * concurrent guesses in this process are naturally serialised.
 */
import type {
  IssueCodeOptions,
  OneTimeCodes,
  VerifyOutcome,
} from "../../../engine/coordination/one-time-codes-port.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter-port.ts";
import { checkPoints } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { codeIssueLimiter, checkCodeRequest, codeSettings } from "../code-rules.ts";
import { codeHash, newCode, newSalt, sameDigest } from "../secrets.ts";

interface CodeRecord {
  salt: string;
  hash: string;
  attempts: number;
  maxAttempts: number;
  expiresAt: number;
}

export function memoryOneTimeCodes(ctx: MemoryContext, limiters: RateLimiters): OneTimeCodes {
  const records = new Map<string, CodeRecord>();
  const issueLimiter = codeIssueLimiter(limiters);
  const idOf = (tenant: string, subject: string, purpose: string) =>
    `${ctx.keyPrefix}${tenant}\u0000${subject}\u0000${purpose}`;

  return {
    async issue(tenant, subject, purpose, options: IssueCodeOptions = {}) {
      checkCodeRequest(tenant, subject, purpose);
      const s = codeSettings(options);
      await issueLimiter.take(tenant, subject, purpose);
      const code = newCode(s.digits);
      const salt = newSalt();
      const expiresAt = Date.now() + s.ttlMs;
      records.set(idOf(tenant, subject, purpose), {
        salt,
        hash: codeHash(salt, code),
        attempts: 0,
        maxAttempts: s.maxAttempts,
        expiresAt,
      });
      return { code, expiresAt: new Date(expiresAt) };
    },
    verify(tenant, subject, purpose, code): Promise<VerifyOutcome> {
      // Bad input rejects, as on every backend (never a synchronous throw).
      return Promise.resolve().then((): VerifyOutcome => {
        checkCodeRequest(tenant, subject, purpose);
        const id = idOf(tenant, subject, purpose);
        const r = records.get(id);
        if (r === undefined) return "none";
        if (r.expiresAt <= Date.now()) {
          records.delete(id);
          return "expired";
        }
        if (r.attempts >= r.maxAttempts) return "exhausted";
        if (typeof code === "string" && sameDigest(codeHash(r.salt, code), r.hash)) {
          records.delete(id);
          return "ok";
        }
        r.attempts++;
        return "wrong";
      });
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- rejects on bad input like every backend
    async cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      const now = Date.now();
      let removed = 0;
      for (const [id, r] of records) {
        if (removed >= maxEntries) break;
        if (r.expiresAt <= now) {
          records.delete(id);
          removed++;
        }
      }
      return removed;
    },
  };
}
