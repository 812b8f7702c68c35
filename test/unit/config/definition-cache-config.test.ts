import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../../src/config/config-error.ts";
import { loadConfig, type LoadConfigOptions } from "../../../src/config/load-config.ts";

const DEV = { NODE_ENV: "development" };
const load = (o: LoadConfigOptions = {}) => loadConfig({ ...o, env: { ...DEV, ...o.env } });

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
    return e.message;
  }
  assert.fail("expected a ConfigError");
}

const file = (text: string) => ({ configFile: "t.json", readFile: () => text });

void describe("definition cache settings", () => {
  void it("default to memory, on, taskflow:defs:, 5 min sliding, 1 h absolute", () => {
    const c = load();
    assert.equal(c.definitionCache, "memory");
    assert.equal(c.definitionCacheEnabled, true);
    assert.equal(c.definitionCachePrefix, "taskflow:defs:");
    assert.equal(c.definitionCacheSliding, 300_000);
    assert.equal(c.definitionCacheAbsolute, 3_600_000);
  });

  void it("come from the environment, a file and code, the later layer winning", () => {
    const env = {
      WF_DEFINITION_CACHE: "Redis",
      REDIS_URL: "redis://127.0.0.1:6379",
      WF_DEFINITION_CACHE_ENABLED: "false",
      WF_DEFINITION_CACHE_PREFIX: "app:defs:",
      WF_DEFINITION_CACHE_SLIDING: "off",
      WF_DEFINITION_CACHE_ABSOLUTE: "60000",
    };
    const c = load({ env });
    assert.equal(c.definitionCache, "redis");
    assert.equal(c.definitionCacheEnabled, false);
    assert.equal(c.definitionCachePrefix, "app:defs:");
    assert.equal(c.definitionCacheSliding, 0);
    assert.equal(c.definitionCacheAbsolute, 60_000);
    const f = load({
      ...file('{"definitionCacheSliding": 1000, "definitionCacheEnabled": false}'),
    });
    assert.equal(f.definitionCacheSliding, 1000);
    assert.equal(f.definitionCacheEnabled, false);
    const fe = load({
      ...file('{"definitionCacheSliding": 1000}'),
      env: { WF_DEFINITION_CACHE_SLIDING: "2000" },
    });
    assert.equal(fe.definitionCacheSliding, 2000);
    const code = load({
      env: { WF_DEFINITION_CACHE_SLIDING: "2000" },
      overrides: { definitionCacheSliding: 3000 },
    });
    assert.equal(code.definitionCacheSliding, 3000);
  });

  void it("an unknown provider names the layer and the key", () => {
    assert.match(
      configError(() => load({ env: { WF_DEFINITION_CACHE: "memcached" } })),
      /environment WF_DEFINITION_CACHE: "memcached" is not a cache provider \(one of memory, redis\)/,
    );
    assert.match(
      configError(() => load(file('{"definitionCache": "file"}'))),
      /config file t\.json definitionCache: "file" is not a cache provider/,
    );
  });

  void it("bad values name the layer and the key", () => {
    assert.match(
      configError(() => load({ env: { WF_DEFINITION_CACHE_SLIDING: "5m" } })),
      /environment WF_DEFINITION_CACHE_SLIDING: "5m" is not a number of milliseconds/,
    );
    assert.match(
      configError(() => load({ overrides: { definitionCacheAbsolute: -1 } })),
      /code overrides definitionCacheAbsolute: -1 is not a number of milliseconds/,
    );
    assert.match(
      configError(() => load({ env: { WF_DEFINITION_CACHE_ENABLED: "yes" } })),
      /environment WF_DEFINITION_CACHE_ENABLED: "yes" is not one of true, false/,
    );
    assert.match(
      configError(() => load({ env: { WF_DEFINITION_CACHE_PREFIX: "a b" } })),
      /environment WF_DEFINITION_CACHE_PREFIX: must be at most 64 characters/,
    );
  });

  void it("redis with no Redis anywhere fails at start, naming both settings", () => {
    const message = configError(() => load({ env: { WF_DEFINITION_CACHE: "redis" } }));
    assert.match(message, /WF_DEFINITION_CACHE is redis but neither REDIS_URL nor REDIS_SENTINELS/);
    // Also with payload caching off: the explicit choice is still wrong.
    assert.match(
      configError(() =>
        load({ env: { WF_DEFINITION_CACHE: "redis", WF_DEFINITION_CACHE_ENABLED: "false" } }),
      ),
      /WF_DEFINITION_CACHE is redis/,
    );
    const viaSentinels = load({
      env: {
        WF_DEFINITION_CACHE: "redis",
        REDIS_SENTINELS: "s1:26379",
        REDIS_SENTINEL_NAME: "mymaster",
      },
    });
    assert.equal(viaSentinels.definitionCache, "redis");
  });

  void it("sliding and absolute both off fails, naming both", () => {
    assert.match(
      configError(() =>
        load({ env: { WF_DEFINITION_CACHE_SLIDING: "0", WF_DEFINITION_CACHE_ABSOLUTE: "off" } }),
      ),
      /WF_DEFINITION_CACHE_SLIDING and WF_DEFINITION_CACHE_ABSOLUTE are both off/,
    );
  });
});

void describe("lists from a later layer", () => {
  void it("replace the earlier list whole, never merge by index", () => {
    const c = load({
      ...file('{"redisSentinels": ["a:1", "b:2", "c:3"], "users": ["u1", "u2", "u3"]}'),
      env: { REDIS_SENTINELS: "d:4", REDIS_SENTINEL_NAME: "m", WF_USERS: "u9" },
    });
    assert.deepEqual(c.redisSentinels, [{ host: "d", port: 4 }]);
    assert.deepEqual(c.users, ["u9"]);
    const code = load({
      ...file('{"redisSentinels": ["a:1", "b:2"], "redisSentinelName": "m"}'),
      overrides: { redisSentinels: [{ host: "z", port: 9 }], apiKeys: [] },
    });
    assert.deepEqual(code.redisSentinels, [{ host: "z", port: 9 }]);
    const emptied = load({
      ...file('{"users": ["u1", "u2"]}'),
      overrides: { users: [] },
    });
    assert.deepEqual(emptied.users, []);
  });
});
