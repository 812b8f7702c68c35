/**
 * The definition cache's configuration rules that need no server: which layer
 * set a setting, a host's handed-in connection against the chosen backend, the
 * Sentinel settings in a config file, and lists that replace rather than merge
 * across file, environment and code.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Redis } from "ioredis";
import { ConfigError } from "../../../src/config/config-error.ts";
import { describeSetting, sourceOf } from "../../../src/config/config-sources.ts";
import { loadConfig, type LoadConfigOptions } from "../../../src/config/load-config.ts";
import { assertHostConnections } from "../../../src/composition/host-connections.ts";

const DEV = { NODE_ENV: "development" };
const load = (o: LoadConfigOptions = {}) => loadConfig({ ...o, env: { ...DEV, ...o.env } });
const file = (text: string) => ({ configFile: "t.json", readFile: () => text });

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
    return e.message;
  }
  assert.fail("expected a ConfigError");
}

/** A real ioredis client that never dials (lazyConnect, no command sent): nothing to reach. */
function idleConnection(): Redis {
  return new Redis({ lazyConnect: true, port: 1 });
}

void describe("an unknown choice", () => {
  void it("fails at load naming the layer and the key, from code and beside other problems", () => {
    const message = configError(() =>
      load({
        env: { WF_DEFINITION_CACHE_CONSISTENCY: "eventual" },
        overrides: { definitionCache: "memcached" },
      }),
    );
    assert.match(message, /code overrides definitionCache: "memcached" is not a cache provider/);
    assert.match(message, /environment WF_DEFINITION_CACHE_CONSISTENCY: "eventual" is not a/);
  });
});

void describe("coordination and the cache on one Redis", () => {
  const both = {
    WF_COORDINATION: "redis",
    WF_DEFINITION_CACHE: "redis",
    REDIS_URL: "redis://r:6379",
  };

  void it("refuse a coordination prefix inside the cache's, naming both", () => {
    assert.match(
      configError(() => load({ env: { ...both, WF_DEFINITION_CACHE_PREFIX: "taskflow:" } })),
      /WF_KEY_PREFIX "taskflow:" starts with WF_DEFINITION_CACHE_PREFIX "taskflow:"/,
    );
    assert.match(
      configError(() =>
        load({ env: { ...both, WF_KEY_PREFIX: "app:coord:", WF_DEFINITION_CACHE_PREFIX: "app:" } }),
      ),
      /WF_KEY_PREFIX "app:coord:" starts with WF_DEFINITION_CACHE_PREFIX "app:"/,
    );
  });

  void it("accept the defaults, apart prefixes, and the cache alone on Redis", () => {
    assert.equal(load({ env: both }).definitionCachePrefix, "taskflow:defs:");
    load({ env: { ...both, WF_KEY_PREFIX: "app:", WF_DEFINITION_CACHE_PREFIX: "app-defs:" } });
    load({
      env: { ...both, WF_COORDINATION: "sql", WF_DEFINITION_CACHE_PREFIX: "taskflow:" },
    });
  });
});

void describe("which layer set a setting", () => {
  void it("is known for every key of a loaded config, and lost on a config built in code", () => {
    const c = load({
      ...file('{"definitionCacheSliding": 1000}'),
      env: { WF_DEFINITION_CACHE_ABSOLUTE: "2000" },
      overrides: { definitionLockTimeout: 50 },
    });
    assert.deepEqual(sourceOf(c, "definitionCache"), {
      layer: "defaults",
      name: "definitionCache",
    });
    assert.deepEqual(sourceOf(c, "definitionCacheSliding"), {
      layer: "config file t.json",
      name: "definitionCacheSliding",
    });
    assert.deepEqual(sourceOf(c, "definitionCacheAbsolute"), {
      layer: "environment",
      name: "WF_DEFINITION_CACHE_ABSOLUTE",
    });
    assert.deepEqual(sourceOf(c, "definitionLockTimeout"), {
      layer: "code overrides",
      name: "definitionLockTimeout",
    });
    assert.equal(sourceOf({ ...c }, "definitionCache"), undefined);
  });

  void it("is described as the operator wrote it, or as never set", () => {
    const env = load({ env: { WF_DEFINITION_CACHE: "memory" } });
    assert.equal(
      describeSetting(env, "definitionCache", "WF_DEFINITION_CACHE"),
      "environment WF_DEFINITION_CACHE=memory",
    );
    assert.equal(
      describeSetting(load(), "definitionCache", "WF_DEFINITION_CACHE"),
      "WF_DEFINITION_CACHE=memory (not set: the default)",
    );
    const code = load({ overrides: { definitionCache: "memory" } });
    assert.equal(
      describeSetting(code, "definitionCache", "WF_DEFINITION_CACHE"),
      "code overrides definitionCache=memory",
    );
    assert.equal(
      describeSetting({ ...code }, "definitionCache", "WF_DEFINITION_CACHE"),
      "WF_DEFINITION_CACHE=memory",
    );
  });
});

void describe("a connection the host hands in", () => {
  void it("for the Redis cache while the provider is memory fails, naming both", () => {
    const redis = idleConnection();
    try {
      const explicit = configError(() =>
        assertHostConnections(load({ env: { WF_DEFINITION_CACHE: "memory" } }), {
          definitionCacheRedis: redis,
        }),
      );
      assert.match(explicit, /createTaskflow option definitionCacheRedis/);
      assert.match(explicit, /environment WF_DEFINITION_CACHE=memory/);
      // The default is what would silently run: a conflict too, said as such.
      const byDefault = configError(() =>
        assertHostConnections(load(), { definitionCacheRedis: redis }),
      );
      assert.match(byDefault, /definitionCacheRedis .* WF_DEFINITION_CACHE=memory \(not set/);
      const fromFile = configError(() =>
        assertHostConnections(load(file('{"definitionCache": "memory"}')), {
          definitionCacheRedis: redis,
        }),
      );
      assert.match(fromFile, /config file t\.json definitionCache=memory/);
      // Payloads off does not make the connection fit a memory provider.
      assert.throws(
        () =>
          assertHostConnections(load({ env: { WF_DEFINITION_CACHE_ENABLED: "false" } }), {
            definitionCacheRedis: redis,
          }),
        ConfigError,
      );
      assert.equal(redis.status, "wait", "the check dialled nothing");
    } finally {
      redis.disconnect();
    }
  });

  void it("for coordination while WF_COORDINATION is not redis fails, naming both", () => {
    const redis = idleConnection();
    try {
      const message = configError(() =>
        assertHostConnections(load({ env: { WF_COORDINATION: "sql" } }), { redis }),
      );
      assert.match(message, /createTaskflow option redis .* environment WF_COORDINATION=sql/);
      const both = configError(() =>
        assertHostConnections(load(), { redis, definitionCacheRedis: redis }),
      );
      assert.match(both, /definitionCacheRedis.*; .*option redis/);
    } finally {
      redis.disconnect();
    }
  });

  void it("fits its backend; redis with payloads off is no conflict", () => {
    const redis = idleConnection();
    try {
      const env = {
        WF_DEFINITION_CACHE: "redis",
        WF_COORDINATION: "redis",
        REDIS_URL: "redis://127.0.0.1:6379",
      };
      assertHostConnections(load({ env }), { redis, definitionCacheRedis: redis });
      const off = load({ env: { ...env, WF_DEFINITION_CACHE_ENABLED: "false" } });
      assert.equal(off.definitionCacheEnabled, false);
      assertHostConnections(off, { definitionCacheRedis: redis });
      assertHostConnections(load(), {});
    } finally {
      redis.disconnect();
    }
  });
});

void describe("Redis for the cache by Sentinel", () => {
  void it("a config file may list sentinels as { host, port } objects", () => {
    const c = load(
      file(
        JSON.stringify({
          definitionCache: "redis",
          redisSentinels: [
            { host: "s1", port: 26379 },
            { host: "10.0.0.2", port: 26380 },
          ],
          redisSentinelName: "mymaster",
        }),
      ),
    );
    assert.equal(c.definitionCache, "redis");
    assert.deepEqual(c.redisSentinels, [
      { host: "s1", port: 26379 },
      { host: "10.0.0.2", port: 26380 },
    ]);
    assert.equal(c.redisSentinelName, "mymaster");
  });

  void it("a bad sentinel object names the file and the key", () => {
    assert.match(
      configError(() =>
        load(file('{"redisSentinels": [{"host": "s1", "port": 70000}], "redisSentinelName": "m"}')),
      ),
      /config file t\.json redisSentinels: port 70000 of s1 is not 1–65535/,
    );
    assert.match(
      configError(() => load(file('{"redisSentinels": [{"host": "s1"}]}'))),
      /config file t\.json redisSentinels: \{"host":"s1"\} is not "host:port"/,
    );
  });
});

void describe("a list from a later layer", () => {
  const base = JSON.stringify({
    redisSentinels: [
      { host: "a", port: 1 },
      { host: "b", port: 2 },
      { host: "c", port: 3 },
    ],
    redisSentinelName: "m",
  });

  void it("replaces the file's three sentinels whole: environment, then code", () => {
    const env = load({ ...file(base), env: { REDIS_SENTINELS: "d:4" } });
    assert.deepEqual(env.redisSentinels, [{ host: "d", port: 4 }]);
    const code = load({
      ...file(base),
      env: { REDIS_SENTINELS: "d:4,e:5" },
      overrides: { redisSentinels: [{ host: "z", port: 9 }] },
    });
    assert.deepEqual(code.redisSentinels, [{ host: "z", port: 9 }]);
    assert.deepEqual(sourceOf(code, "redisSentinels"), {
      layer: "code overrides",
      name: "redisSentinels",
    });
    const fileOnly = load(file(base));
    assert.equal(fileOnly.redisSentinels.length, 3);
  });
});
