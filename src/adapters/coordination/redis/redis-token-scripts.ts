/**
 * The Lua scripts of the Redis opaque tokens. Keys, under
 * `<prefix>tok:<tenant>:` (the base; tenants have no ':'):
 *
 * - `id:<id>`       hash: family, purpose, subject, hash, data, created, and
 *                   expires / retired / revoked when set (ms);
 * - `h:<sha256>`    the id of the token whose secret hashes to it;
 * - `fam:<family>`  set of the family's ids;
 * - `pur:<purpose>` sorted set of ids by creation time, for list();
 * - `<prefix>tok:gc` (one per prefix) sorted set of `<tenant>:<id>` by when
 *   cleanup may remove the token: a day after its revocation, else its
 *   retirement, else its expiry (each write sets the score its event gives).
 *
 * A family's members and a rotation's new token are only known inside the
 * script, so scripts build those key names from the base: fine on one Redis
 * or a Sentinel group; Redis Cluster would need every key in one slot.
 */
import { luaScript } from "./redis-calls.ts";

/** Lua helpers every script starts with. */
const COMMON = `
local function fields(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local t = {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end
local function expired(t, now)
  return t.expires ~= nil and tonumber(t.expires) <= now
end
local function live(t, now)
  return t.retired == nil and t.revoked == nil and not expired(t, now)
end
local function forget_at(gc, tenant, id, at, keep)
  redis.call('ZADD', gc, at + keep, tenant .. ':' .. id)
end
local function revoke_family(base, gc, tenant, family, now, keep)
  local n = 0
  for _, id in ipairs(redis.call('SMEMBERS', base .. 'fam:' .. family)) do
    local key = base .. 'id:' .. id
    if redis.call('EXISTS', key) == 1 and redis.call('HSETNX', key, 'revoked', now) == 1 then
      forget_at(gc, tenant, id, now, keep)
      n = n + 1
    end
  end
  return n
end
local function create(base, gc, tenant, keep, id, family, purpose, subject, hash, data, created, expires)
  local key = base .. 'id:' .. id
  redis.call('HSET', key, 'family', family, 'purpose', purpose, 'subject', subject,
    'hash', hash, 'data', data, 'created', created)
  if expires ~= nil then
    redis.call('HSET', key, 'expires', expires)
    forget_at(gc, tenant, id, expires, keep)
  end
  redis.call('SET', base .. 'h:' .. hash, id)
  redis.call('SADD', base .. 'fam:' .. family, id)
  redis.call('ZADD', base .. 'pur:' .. purpose, created, id)
end
`;

/** ARGV: base, gc, tenant, keep, id, family, purpose, subject, hash, data, created, expires or ''. */
export const ISSUE = luaScript(`${COMMON}
local expires = nil
if ARGV[12] ~= '' then expires = tonumber(ARGV[12]) end
create(ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7], ARGV[8],
  ARGV[9], ARGV[10], tonumber(ARGV[11]), expires)
return 1
`);

/** ARGV: base, hash. The token's id and fields, flat, or nil. */
export const READ = luaScript(`${COMMON}
local id = redis.call('GET', ARGV[1] .. 'h:' .. ARGV[2])
if not id then return nil end
local flat = redis.call('HGETALL', ARGV[1] .. 'id:' .. id)
if #flat == 0 then return nil end
table.insert(flat, 1, id)
return flat
`);

/** ARGV: base, gc, tenant, keep, now, purpose, hash, id. 1 when a live token was revoked. */
export const REVOKE = luaScript(`${COMMON}
local base, now = ARGV[1], tonumber(ARGV[5])
local id = redis.call('GET', base .. 'h:' .. ARGV[7])
if not id then id = ARGV[8] end
local key = base .. 'id:' .. id
local t = fields(key)
if t == nil or t.purpose ~= ARGV[6] or not live(t, now) then return 0 end
redis.call('HSET', key, 'revoked', now)
forget_at(ARGV[2], ARGV[3], id, now, tonumber(ARGV[4]))
return 1
`);

/** ARGV: base, gc, tenant, keep, now, family. How many tokens were revoked. */
export const REVOKE_FAMILY = luaScript(`${COMMON}
return revoke_family(ARGV[1], ARGV[2], ARGV[3], ARGV[6], tonumber(ARGV[5]), tonumber(ARGV[4]))
`);

/**
 * ARGV: base, gc, tenant, keep, now, purpose, hash, new id, new hash, ttl or ''.
 * {'rotated', family, subject, data, expires or ''} | {'reused'} | {'invalid'}.
 */
export const ROTATE = luaScript(`${COMMON}
local base, gc, tenant, keep, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local id = redis.call('GET', base .. 'h:' .. ARGV[7])
if not id then return {'invalid'} end
local t = fields(base .. 'id:' .. id)
if t == nil or t.purpose ~= ARGV[6] or expired(t, now) then return {'invalid'} end
if t.retired ~= nil or t.revoked ~= nil then
  revoke_family(base, gc, tenant, t.family, now, keep)
  return {'reused'}
end
redis.call('HSET', base .. 'id:' .. id, 'retired', now)
forget_at(gc, tenant, id, now, keep)
local expires = nil
if ARGV[10] ~= '' then
  expires = now + tonumber(ARGV[10])
elseif t.expires ~= nil then
  expires = now + (tonumber(t.expires) - tonumber(t.created))
end
create(base, gc, tenant, keep, ARGV[8], t.family, t.purpose, t.subject, ARGV[9], t.data, now, expires)
local shown = ''
if expires ~= nil then shown = string.format('%d', expires) end
return {'rotated', t.family, t.subject, t.data, shown}
`);

/**
 * ARGV: gc, prefix, now, max. Removes up to max tokens due for removal with
 * every index entry of theirs; returns how many.
 */
export const CLEANUP = luaScript(`${COMMON}
local gc, prefix = ARGV[1], ARGV[2]
local due = redis.call('ZRANGEBYSCORE', gc, '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
for _, member in ipairs(due) do
  local sep = string.find(member, ':', 1, true)
  local tenant, id = string.sub(member, 1, sep - 1), string.sub(member, sep + 1)
  local base = prefix .. 'tok:' .. tenant .. ':'
  local t = fields(base .. 'id:' .. id)
  if t ~= nil then
    if redis.call('GET', base .. 'h:' .. t.hash) == id then redis.call('DEL', base .. 'h:' .. t.hash) end
    redis.call('SREM', base .. 'fam:' .. t.family, id)
    redis.call('ZREM', base .. 'pur:' .. t.purpose, id)
    redis.call('DEL', base .. 'id:' .. id)
  end
  redis.call('ZREM', gc, member)
end
return #due
`);
