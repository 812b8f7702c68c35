/**
 * Opaque tokens on Redis: a hash per token, an index from the secret's
 * SHA-256 to the id, a set per family and a sorted set per purpose (key
 * layout in redis-token-scripts.ts). Every write is one Lua script, so a
 * rotation retires the presented token and creates the next one with no
 * moment in between: of two concurrent rotations of one token the second
 * script finds it retired, which is reuse, and revokes the family — the
 * first one's new token included.
 */
import type { Redis } from "ioredis";
import type { RedisContext } from "../coordination-context.ts";
import type {
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
  isLive,
  listingState,
  parseData,
  TOKEN_KEEP_MS,
} from "../token-rules.ts";
import { newId, newTokenSecret, sha256Hex } from "../secrets.ts";
import { redisCall, runScript, type LuaScript } from "./redis-calls.ts";

/** A script on the shared connection; transport failures become UnavailableError. */
const script = (
  redis: Redis,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> => redisCall(redis, (r) => runScript(r, lua, keys, args));
import { CLEANUP, ISSUE, READ, REVOKE, REVOKE_FAMILY, ROTATE } from "./redis-token-scripts.ts";

/** Tokens per CLEANUP script: each removal is ~6 commands; 500 keeps one script to a few ms. */
const CLEANUP_CHUNK = 500;

type Fields = Record<string, string | undefined>;

const optionalMillis = (v: string | undefined): number | null =>
  v === undefined || v === "" ? null : Number(v);

function infoOf(id: string, f: Fields): TokenInfo {
  const expiresAt = optionalMillis(f.expires);
  return {
    id,
    familyId: f.family ?? "",
    purpose: f.purpose ?? "",
    subject: f.subject ?? "",
    data: parseData(f.data ?? "{}"),
    createdAt: new Date(Number(f.created)),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
  };
}

const stateOf = (f: Fields) => ({
  expiresAt: optionalMillis(f.expires),
  retiredAt: optionalMillis(f.retired),
  revokedAt: optionalMillis(f.revoked),
});

function fieldsOf(flat: readonly string[], from: number): Fields {
  const f: Fields = {};
  for (let i = from; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1];
  return f;
}

export function redisOpaqueTokens(ctx: RedisContext): OpaqueTokens {
  const { redis, keyPrefix } = ctx;
  const gc = `${keyPrefix}tok:gc`;
  const baseOf = (tenant: string) => `${keyPrefix}tok:${tenant}:`;
  /** The ARGV every writing script starts with. */
  const head = (tenant: string) => [baseOf(tenant), gc, tenant, TOKEN_KEEP_MS];

  return {
    async issue(tenant, options) {
      const data = checkIssue(tenant, options);
      const token = newTokenSecret();
      const id = newId();
      const now = Date.now();
      const expires = options.ttlMs === undefined ? null : now + options.ttlMs;
      await script(
        redis,
        ISSUE,
        [],
        [
          ...head(tenant),
          id,
          id,
          options.purpose,
          options.subject,
          sha256Hex(token),
          data,
          now,
          expires ?? "",
        ],
      );
      return {
        id,
        familyId: id,
        purpose: options.purpose,
        subject: options.subject,
        data: parseData(data),
        createdAt: new Date(now),
        expiresAt: expires === null ? null : new Date(expires),
        token,
      };
    },

    async verify(tenant, purpose, token) {
      checkPresented(tenant, purpose, token);
      const flat = (await script(redis, READ, [], [baseOf(tenant), sha256Hex(token)])) as
        string[] | null;
      if (flat === null || flat.length === 0) return null;
      const f = fieldsOf(flat, 1);
      if (f.purpose !== purpose || !isLive(stateOf(f), Date.now())) return null;
      return infoOf(flat[0]!, f);
    },

    async revoke(tenant, purpose, tokenOrId) {
      checkPresented(tenant, purpose, tokenOrId);
      const args = [...head(tenant), Date.now(), purpose, sha256Hex(tokenOrId), tokenOrId];
      return Number(await script(redis, REVOKE, [], args)) === 1;
    },

    async revokeFamily(tenant, familyId) {
      checkFamily(tenant, familyId);
      const args = [...head(tenant), Date.now(), familyId];
      return Number(await script(redis, REVOKE_FAMILY, [], args));
    },

    async rotate(tenant, purpose, token, ttlMs): Promise<RotateOutcome> {
      checkPresented(tenant, purpose, token);
      checkTtl(ttlMs);
      const next = newTokenSecret();
      const id = newId();
      const now = Date.now();
      const args = [...head(tenant), now, purpose, sha256Hex(token), id, sha256Hex(next)];
      const reply = (await script(redis, ROTATE, [], [...args, ttlMs ?? ""])) as string[];
      const [outcome, family, subject, data, expires] = reply;
      if (outcome === "reused") return { outcome: "reused" };
      if (outcome !== "rotated") return { outcome: "invalid" };
      const info = infoOf(id, { family, purpose, subject, data, created: String(now), expires });
      return { outcome: "rotated", next: { ...info, token: next } };
    },

    async list(tenant, purpose): Promise<TokenListing[]> {
      checkScope(tenant, purpose);
      const base = baseOf(tenant);
      const ids = await redisCall(redis, () => redis.zrevrange(`${base}pur:${purpose}`, 0, -1));
      const now = Date.now();
      return (await readAll(redis, base, ids)).map(({ id, fields }) => ({
        ...infoOf(id, fields),
        state: listingState(stateOf(fields), now),
      }));
    },

    async cleanup(maxEntries) {
      let left = checkCleanup(maxEntries);
      let removed = 0;
      while (left > 0) {
        const batch = Math.min(left, CLEANUP_CHUNK);
        const args = [gc, keyPrefix, Date.now(), batch];
        const n = Number(await script(redis, CLEANUP, [], args));
        removed += n;
        left -= n;
        if (n < batch) break;
      }
      return removed;
    },
  };
}

/** The tokens' hashes in one round trip; ids whose hash is gone (cleaned up) are left out. */
async function readAll(
  redis: Redis,
  base: string,
  ids: readonly string[],
): Promise<{ id: string; fields: Fields }[]> {
  if (ids.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hgetall(`${base}id:${id}`);
  const replies = (await redisCall(redis, () => pipeline.exec())) ?? [];
  const out: { id: string; fields: Fields }[] = [];
  replies.forEach(([error, value], i) => {
    if (error) throw error;
    const fields = value as Fields;
    if (Object.keys(fields).length > 0) out.push({ id: ids[i]!, fields });
  });
  return out;
}
