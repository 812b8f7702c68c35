/**
 * Locks on Redis: `SET lock owner NX PX lease` and `INCR` of the lock's fence
 * key in one Lua script, so a grant and its token are one step. Release is a
 * compare-and-delete, extend a compare-and-pexpire: neither touches a lock
 * another owner holds now. The fence key has no TTL, so tokens keep growing
 * after the lock itself expired.
 *
 * A holder that dies keeps its lock until the lease passes (Redis knows no
 * session). Locally, the signal aborts when the lease passes without extend,
 * counted from before the grant was sent, so never after Redis let it go.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { AcquireOptions, LockHandle, Locks } from "../../../engine/coordination/locks-port.ts";
import type { RedisContext } from "../coordination-context.ts";
import { checkAcquire, checkIsCurrent, LeasedLock, tryUntil } from "../lock-handle.ts";
import { luaScript, redisCall, runScript, type LuaScript } from "./redis-calls.ts";

/** KEYS: lock, fence. ARGV: owner, lease ms. The new token (as text), or nil when held. */
const ACQUIRE = luaScript(`
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return tostring(redis.call('incr', KEYS[2]))
end
return false`);

/** KEYS: lock. ARGV: owner. 1 when it was ours and is gone now. */
const RELEASE = luaScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`);

/** KEYS: lock. ARGV: owner, lease ms. 1 when it is ours and extended, 0 when not ours. */
const EXTEND = luaScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0`);

export function redisLocks(ctx: RedisContext): Locks {
  const redis: Redis = ctx.redis;
  /** One script call: dialled first, bounded in time, failures as UnavailableError. */
  const run = (script: LuaScript, keys: string[], args: (string | number)[]) =>
    redisCall(redis, (r) => runScript(r, script, keys, args));
  const mine = new Set<LeasedLock>();
  let closed = false;

  // Tenants are [A-Za-z0-9._-]: "tenant:name" is unambiguous.
  const lockKey = (tenant: string, name: string) => `${ctx.keyPrefix}lock:${tenant}:${name}`;
  const fenceKey = (tenant: string, name: string) => `${ctx.keyPrefix}lock-fence:${tenant}:${name}`;

  async function tryOnce(
    tenant: string,
    name: string,
    leaseMs: number,
  ): Promise<LockHandle | null> {
    if (closed) throw new Error("the locks are closed");
    const key = lockKey(tenant, name);
    const owner = randomBytes(16).toString("hex");
    const grantedAt = Date.now();
    const token = await run(ACQUIRE, [key, fenceKey(tenant, name)], [owner, leaseMs]);
    if (token === null) return null;
    const handle: LeasedLock = new LeasedLock(
      tenant,
      name,
      BigInt(token as string),
      leaseMs,
      grantedAt,
      {
        extend: async (ms) => Number(await run(EXTEND, [key], [owner, ms])) === 1,
        release: async () => {
          await run(RELEASE, [key], [owner]);
        },
      },
      () => mine.delete(handle),
    );
    mine.add(handle);
    return handle;
  }

  return {
    async acquire(tenant: string, name: string, options?: AcquireOptions) {
      const { waitMs, leaseMs } = checkAcquire(tenant, name, options);
      return tryUntil(waitMs, () => tryOnce(tenant, name, leaseMs));
    },

    async isCurrent(tenant: string, name: string, token: bigint) {
      checkIsCurrent(tenant, name, token);
      const last = await redisCall(redis, (r) => r.get(fenceKey(tenant, name)));
      return last !== null && BigInt(last) === token;
    },

    async close() {
      if (closed) return;
      closed = true;
      // Give the locks back now rather than at their lease end; the connection may close next.
      await Promise.all([...mine].map((h) => h.lose("the locks were closed", true)));
    },
  };
}
