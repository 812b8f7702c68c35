/**
 * The two scripts of the Redis provider. Each entry is a hash
 * { payload, slide, deadline }: slide in ms (0: none), deadline in epoch ms of
 * the Redis server's clock (0: none); the key's own PEXPIRE is the entry's end.
 *
 * Time comes from the server (TIME), not from the caller: the deadline one
 * node writes is checked by every other node, and node clocks drift apart;
 * PEXPIRE itself counts in the server's clock anyway, so one clock decides
 * both. (Redis replicates a script's effects, not the script, since 5.0 by
 * default and always since 7.0, so TIME inside a writing script is allowed.)
 *
 * GET reads and extends in one script, so a concurrent SET cannot land
 * between the read and the PEXPIRE and have its own expiry overwritten.
 */
import { luaScript } from "../coordination/redis/redis-calls.ts";

const NOW_MS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1]; returns the payload (extending the entry) or false. */
export const GET_AND_TOUCH = luaScript(`
local v = redis.call('HMGET', KEYS[1], 'payload', 'slide', 'deadline')
if not v[1] then return false end
local slide = tonumber(v[2]) or 0
if slide > 0 then
  ${NOW_MS}
  local ttl = slide
  local deadline = tonumber(v[3]) or 0
  if deadline > 0 and deadline - now < ttl then ttl = deadline - now end
  if ttl <= 0 then
    redis.call('DEL', KEYS[1])
    return false
  end
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return v[1]`);

/** KEYS[1]; ARGV: payload, slide ms, absolute ms (0: none; not both 0). */
export const SET_ENTRY = luaScript(`
${NOW_MS}
local slide = tonumber(ARGV[2])
local absolute = tonumber(ARGV[3])
local deadline = 0
if absolute > 0 then deadline = now + absolute end
local ttl = slide
if ttl == 0 or (absolute > 0 and absolute < ttl) then ttl = absolute end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'payload', ARGV[1], 'slide', ARGV[2],
  'deadline', string.format('%.0f', deadline))
redis.call('PEXPIRE', KEYS[1], ttl)
return 1`);
