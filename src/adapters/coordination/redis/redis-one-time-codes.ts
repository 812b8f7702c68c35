/**
 * One-time codes on Redis: one hash per (tenant, slot) holding the salt, the
 * code's HMAC, the attempt count, the cap and the expiry.
 *
 * A guess reads the hash, compares HMACs here (constant time), then runs
 * SETTLE, which decides atomically on the state Redis holds at that moment:
 * the salt must still be the one the guess was checked against (no new issue
 * in between), the cap not reached, the code not expired. Only then does it
 * delete (right) or add one attempt (wrong). Scripts run one at a time, so 50
 * concurrent wrong guesses against a cap of 5 count exactly 5.
 *
 * The key outlives the code by EXPIRED_KEPT_MS, so a late guess is told
 * "expired" rather than "none"; after that Redis drops the key on its own.
 */
import type { Redis } from "ioredis";
import type { RedisContext } from "../coordination-context.ts";
import type {
  IssuedCode,
  OneTimeCodes,
  VerifyOutcome,
} from "../../../engine/coordination/one-time-codes-port.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter-port.ts";
import { checkPoints } from "../check-input.ts";
import { checkCodeRequest, codeIssueLimiter, codeSettings } from "../code-rules.ts";
import { codeSlot } from "../code-slot.ts";
import { codeHash, newCode, newSalt, sameDigest } from "../secrets.ts";
import { luaScript, redisCall, runScript, type LuaScript } from "./redis-calls.ts";

/** A script on the shared connection; transport failures become UnavailableError. */
const script = (
  redis: Redis,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> => redisCall(redis, (r) => runScript(r, lua, keys, args));

const EXPIRED_KEPT_MS = 5 * 60 * 1000;

/** KEYS[1] the code's hash; ARGV salt, right (1 or 0), now (ms). */
const SETTLE = luaScript(`
local h = redis.call('HMGET', KEYS[1], 'salt', 'attempts', 'max', 'expires')
if not h[1] or h[1] ~= ARGV[1] then return 'none' end
if tonumber(h[4]) <= tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[1])
  return 'expired'
end
if tonumber(h[2]) >= tonumber(h[3]) then return 'exhausted' end
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[1])
  return 'ok'
end
redis.call('HINCRBY', KEYS[1], 'attempts', 1)
return 'wrong'
`);

const OUTCOMES: ReadonlySet<string> = new Set(["ok", "wrong", "expired", "exhausted", "none"]);

export function redisOneTimeCodes(ctx: RedisContext, limiters: RateLimiters): OneTimeCodes {
  const issueBudget = codeIssueLimiter(limiters);
  const { redis, keyPrefix } = ctx;
  const keyOf = (tenant: string, slot: string) => `${keyPrefix}code:${tenant}:${slot}`;

  return {
    async issue(tenant, subject, purpose, options = {}): Promise<IssuedCode> {
      checkCodeRequest(tenant, subject, purpose);
      const settings = codeSettings(options);
      await issueBudget.take(tenant, subject, purpose);
      const slot = codeSlot(keyPrefix, subject, purpose);
      const key = keyOf(tenant, slot);
      const code = newCode(settings.digits);
      const salt = newSalt();
      const expires = Date.now() + settings.ttlMs;
      const fields = {
        subject,
        purpose,
        salt,
        hash: codeHash(salt, code),
        attempts: 0,
        max: settings.maxAttempts,
        expires,
      };
      // MULTI: a concurrent guess sees the old code or the new one, never half of each.
      const replies = await redisCall(redis, () =>
        redis
          .multi()
          .del(key)
          .hset(key, fields)
          .pexpire(key, settings.ttlMs + EXPIRED_KEPT_MS)
          .exec(),
      );
      const failed = replies?.find(([e]) => e !== null);
      if (replies === null || failed !== undefined) {
        throw new Error(`redis refused to store a code: ${String(failed?.[0] ?? "aborted")}`);
      }
      return { code, expiresAt: new Date(expires) };
    },

    async verify(tenant, subject, purpose, code): Promise<VerifyOutcome> {
      checkCodeRequest(tenant, subject, purpose);
      const slot = codeSlot(keyPrefix, subject, purpose);
      const key = keyOf(tenant, slot);
      const [salt, hash] = await redisCall(redis, () => redis.hmget(key, "salt", "hash"));
      if (!salt || !hash) return "none";
      // A guess that is not a string is a wrong guess, as on every backend.
      const right = typeof code === "string" && sameDigest(codeHash(salt, code), hash);
      const outcome = String(await script(redis, SETTLE, [key], [salt, right ? 1 : 0, Date.now()]));
      if (!OUTCOMES.has(outcome)) throw new Error(`unexpected code outcome from redis: ${outcome}`);
      return outcome as VerifyOutcome;
    },

    /** Nothing to do: every code key carries its own expiry (PEXPIRE above). */
    // eslint-disable-next-line @typescript-eslint/require-await -- rejects on bad input like every backend
    async cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      return 0;
    },
  };
}
