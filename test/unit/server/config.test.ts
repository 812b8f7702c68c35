import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "../../../src/config/config-error.ts";
import { loadConfig, type LoadConfigOptions } from "../../../src/config/load-config.ts";
import { parseAddr } from "../../../src/config/parse-addr.ts";

const DEV = { NODE_ENV: "development" };
const load = (o: LoadConfigOptions) => loadConfig({ env: DEV, ...o });

/** Runs fn and returns the ConfigError message it must throw. */
function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
    assert.ok(!e.message.includes("\n"), "one line");
    return e.message;
  }
  assert.fail("expected a ConfigError");
}

const files = (content: Record<string, string>) => (path: string) => {
  const text = content[path];
  if (text === undefined) throw Object.assign(new Error("nope"), { code: "ENOENT" });
  return text;
};

void describe("defaults", () => {
  void test("every key has its default", () => {
    const c = load({});
    // Development without ADDR: loopback only (no key protects it).
    assert.deepEqual(c.addr, { host: "127.0.0.1", port: 8081 });
    assert.equal(c.databaseUrl, "sqlite:./taskflow.db");
    assert.deepEqual(c.users, []);
    assert.deepEqual(c.groups, {});
    assert.deepEqual(c.apiKeys, []);
    assert.equal(c.nodeEnv, "development");
    assert.equal(c.bodyLimit, 1024 * 1024);
    assert.equal(c.logLevel, "info");
  });

  void test("ADDR unset listens on every interface outside development; a set ADDR is kept in development", () => {
    const prod = loadConfig({ env: { NODE_ENV: "production", WF_API_KEYS: "k".repeat(24) } });
    assert.deepEqual(prod.addr, { host: "0.0.0.0", port: 8081 });
    assert.deepEqual(load({ env: { ...DEV, ADDR: ":8081" } }).addr, {
      host: "0.0.0.0",
      port: 8081,
    });
    assert.deepEqual(load({ env: { ...DEV, ADDR: ":9000" } }).addr, {
      host: "0.0.0.0",
      port: 9000,
    });
  });

  void test("the result is deeply frozen", () => {
    const c = load({ env: { ...DEV, WF_GROUP_ops: "a,b" } });
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.addr) && Object.isFrozen(c.groups));
    assert.ok(Object.isFrozen(c.groups.ops));
    assert.throws(() => (c.users as string[]).push("x"));
  });

  void test("does not read process.env when env is given", () => {
    process.env.ADDR = "127.0.0.1:1";
    try {
      assert.equal(load({}).addr.port, 8081);
    } finally {
      delete process.env.ADDR;
    }
  });
});

void describe("environment", () => {
  void test("each variable sets its key", () => {
    const c = load({
      env: {
        ADDR: "127.0.0.1:9000",
        DATABASE_URL: "postgres://u:p@h/db",
        WF_USERS: " alice, bob ,,alice",
        WF_GROUP_clerks: "bob,carol",
        WF_GROUP_Ops: "dave",
        WF_API_KEYS: "k1-0123456789abcdefghijkl,k2-0123456789abcdefghijkl",
        NODE_ENV: "production",
        BODY_LIMIT: "2048",
        LOG_LEVEL: "DEBUG",
      },
    });
    assert.deepEqual(c.addr, { host: "127.0.0.1", port: 9000 });
    assert.equal(c.databaseUrl, "postgres://u:p@h/db");
    assert.deepEqual(c.users, ["alice", "bob"]);
    assert.deepEqual(c.groups, { clerks: ["bob", "carol"], Ops: ["dave"] });
    assert.deepEqual(c.apiKeys, ["k1-0123456789abcdefghijkl", "k2-0123456789abcdefghijkl"]);
    assert.equal(c.nodeEnv, "production");
    assert.equal(c.bodyLimit, 2048);
    assert.equal(c.logLevel, "debug");
  });

  void test("an empty variable counts as unset", () => {
    const c = load({ env: { ...DEV, ADDR: "", DATABASE_URL: "", WF_USERS: " " } });
    assert.equal(c.addr.port, 8081);
    assert.equal(c.databaseUrl, "sqlite:./taskflow.db");
    assert.deepEqual(c.users, []);
  });

  void test("errors name the layer and the variable", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ ADDR: "abc" }, /^config error: environment ADDR: "abc" is not host:port$/],
      [{ DATABASE_URL: "redis://x" }, /environment DATABASE_URL: must start with/],
      [{ WF_USERS: "ok,not ok" }, /environment WF_USERS: "not ok" is not a valid id/],
      [{ WF_GROUP_ops: "a,b c" }, /environment WF_GROUP_ops: "b c" is not a valid id/],
      [{ "WF_GROUP_bad!": "a" }, /environment WF_GROUP_bad!: "bad!" is not a valid id/],
      [{ WF_API_KEYS: "good,b\u00e9d" }, /environment WF_API_KEYS: key #2 must be visible ASCII/],
      [{ BODY_LIMIT: "1MB" }, /environment BODY_LIMIT: "1MB" is not a number of bytes/],
      [{ LOG_LEVEL: "loud" }, /environment LOG_LEVEL: "loud" is not one of/],
    ];
    for (const [env, expected] of cases) {
      assert.match(
        configError(() => load({ env: { ...DEV, ...env } })),
        expected,
      );
    }
  });

  void test("secrets are not echoed", () => {
    const keyMsg = configError(() => load({ env: { ...DEV, WF_API_KEYS: "s3cret with space" } }));
    assert.ok(!keyMsg.includes("s3cret"));
    const urlMsg = configError(() => load({ env: { ...DEV, DATABASE_URL: "redis://u:pw@h" } }));
    assert.ok(!urlMsg.includes("pw"));
  });

  void test("all problems are reported together", () => {
    const msg = configError(() => load({ env: { ...DEV, ADDR: "x", LOG_LEVEL: "y" } }));
    assert.match(msg, /environment ADDR: .*; environment LOG_LEVEL: /);
  });
});

void describe("config file", () => {
  const read = files({
    "/etc/tf.json": JSON.stringify({
      addr: "10.0.0.5:7000",
      users: ["alice"],
      groups: { clerks: ["bob"], managers: "alice" },
      logLevel: "warn",
      bodyLimit: 4096,
    }),
    "/bad.json": "{ nope",
    "/array.json": "[]",
    "/typo.json": JSON.stringify({ adr: ":1" }),
    "/badaddr.json": JSON.stringify({ addr: 80 }),
    "/badgroup.json": JSON.stringify({ groups: { ops: ["x y"] } }),
  });

  void test("from --config, or TASKFLOW_CONFIG", () => {
    const a = load({ configFile: "/etc/tf.json", readFile: read });
    assert.deepEqual(a.addr, { host: "10.0.0.5", port: 7000 });
    assert.deepEqual(a.groups, { clerks: ["bob"], managers: ["alice"] });
    assert.equal(a.bodyLimit, 4096);
    const b = load({ env: { ...DEV, TASKFLOW_CONFIG: "/etc/tf.json" }, readFile: read });
    assert.equal(b.logLevel, "warn");
  });

  void test("the environment wins over the file, key by key", () => {
    const c = load({
      env: { ...DEV, LOG_LEVEL: "error" },
      configFile: "/etc/tf.json",
      readFile: read,
    });
    assert.equal(c.logLevel, "error");
    assert.equal(c.addr.port, 7000);
  });

  void test("errors name the file and the key", () => {
    const opts = (f: string) => ({ configFile: f, readFile: read });
    assert.match(
      configError(() => load(opts("/missing.json"))),
      /config file \/missing.json: cannot be read \(ENOENT\)/,
    );
    assert.match(
      configError(() => load(opts("/bad.json"))),
      /config file \/bad.json: is not valid JSON/,
    );
    assert.match(
      configError(() => load(opts("/array.json"))),
      /must contain a JSON object/,
    );
    assert.match(
      configError(() => load(opts("/typo.json"))),
      /config file \/typo.json adr: unknown key/,
    );
    assert.match(
      configError(() => load(opts("/badaddr.json"))),
      /config file \/badaddr.json addr: must be a string/,
    );
    assert.match(
      configError(() => load(opts("/badgroup.json"))),
      /config file \/badgroup.json groups.ops: "x y"/,
    );
  });
});

void describe("code overrides", () => {
  void test("win over the environment and the file", () => {
    const c = load({
      env: { ...DEV, ADDR: ":1", WF_API_KEYS: "env-key" },
      overrides: { addr: { host: "127.0.0.1", port: 0 }, apiKeys: ["code-key"] },
    });
    assert.deepEqual(c.addr, { host: "127.0.0.1", port: 0 });
    assert.deepEqual(c.apiKeys, ["code-key"]);
  });

  void test("errors name the layer and the key", () => {
    assert.match(
      configError(() => load({ overrides: { bodyLimit: -1 } })),
      /^config error: code overrides bodyLimit: -1 is not a number of bytes/,
    );
    assert.match(
      configError(() => load({ overrides: { nope: 1 } as never })),
      /code overrides nope: unknown key/,
    );
  });
});

void describe("API keys outside development", () => {
  void test("no keys and NODE_ENV unset (production) fails, naming WF_API_KEYS and NODE_ENV", () => {
    const msg = configError(() => loadConfig({ env: {} }));
    assert.match(msg, /WF_API_KEYS/);
    assert.match(msg, /NODE_ENV/);
  });

  void test("any NODE_ENV but development needs keys", () => {
    assert.throws(() => loadConfig({ env: { NODE_ENV: "test" } }), ConfigError);
    assert.doesNotThrow(() =>
      loadConfig({ env: { NODE_ENV: "test", WF_API_KEYS: "k".repeat(24) } }),
    );
    assert.doesNotThrow(() => loadConfig({ env: { NODE_ENV: "development" } }));
  });

  void test("outside development every key has at least 24 characters; the message never shows a key", () => {
    const msg = configError(() =>
      loadConfig({
        env: { NODE_ENV: "production", WF_API_KEYS: `${"a".repeat(24)},tiny,${"b".repeat(23)}` },
      }),
    );
    assert.match(msg, /key #2 has 4 characters/);
    assert.match(msg, /key #3 has 23 characters/);
    assert.doesNotMatch(msg, /key #1/);
    assert.doesNotMatch(msg, /tiny|bbbb/);
    assert.doesNotThrow(() => loadConfig({ env: { NODE_ENV: "development", WF_API_KEYS: "k" } }));
  });

  void test("can be waived for commands that serve nothing (migrate)", () => {
    assert.doesNotThrow(() => loadConfig({ env: {}, requireApiKeys: false }));
  });
});

void describe("parseAddr", () => {
  void test("accepted forms", () => {
    assert.deepEqual(parseAddr(":8081"), { host: "0.0.0.0", port: 8081 });
    assert.deepEqual(parseAddr("localhost:80"), { host: "localhost", port: 80 });
    assert.deepEqual(parseAddr("[::1]:9000"), { host: "::1", port: 9000 });
    assert.deepEqual(parseAddr("10.1.2.3:0"), { host: "10.1.2.3", port: 0 });
    assert.deepEqual(parseAddr({ host: "::", port: 1 }), { host: "::", port: 1 });
  });

  void test("refused forms", () => {
    for (const bad of [
      "8081",
      ":",
      ":65536",
      ":-1",
      "::1:80",
      "[nothex]:80",
      "a b:1",
      "h:1x",
      "",
    ]) {
      assert.throws(() => parseAddr(bad), `refuses ${JSON.stringify(bad)}`);
    }
  });
});

void describe("idempotency marker TTL", () => {
  void test("one minute by default; milliseconds from the environment, a file or code", () => {
    assert.equal(load({}).idempotencyMarkerTtl, 60_000);
    assert.equal(
      load({ env: { ...DEV, WF_IDEMPOTENCY_MARKER_TTL: "8000" } }).idempotencyMarkerTtl,
      8000,
    );
    const f = load({
      configFile: "t.json",
      readFile: files({ "t.json": '{"idempotencyMarkerTtl": 120000}' }),
    });
    assert.equal(f.idempotencyMarkerTtl, 120_000);
    assert.equal(load({ overrides: { idempotencyMarkerTtl: 1000 } }).idempotencyMarkerTtl, 1000);
  });

  void test("outside 1 s – 1 h, or not whole milliseconds, fails naming the setting", () => {
    for (const bad of ["999", "3600001", "off", "1.5", "-1000"]) {
      assert.match(
        configError(() => load({ env: { ...DEV, WF_IDEMPOTENCY_MARKER_TTL: bad } })),
        /environment WF_IDEMPOTENCY_MARKER_TTL: .* is not a number of milliseconds between 1000 and 3600000/,
        bad,
      );
    }
  });
});

void describe("caps per run", () => {
  void test("defaults, the environment, off; a bad value names the setting", () => {
    const d = load({});
    assert.deepEqual(
      [d.runMaxPendingSignals, d.runMaxHistory, d.signalMaxBytes],
      [100, 10_000, 65_536],
    );
    const c = load({
      env: {
        ...DEV,
        WF_RUN_MAX_PENDING_SIGNALS: "5",
        WF_RUN_MAX_HISTORY: "off",
        WF_SIGNAL_MAX_BYTES: "1024",
      },
    });
    assert.deepEqual([c.runMaxPendingSignals, c.runMaxHistory, c.signalMaxBytes], [5, 0, 1024]);
    assert.match(
      configError(() => load({ env: { ...DEV, WF_RUN_MAX_HISTORY: "lots" } })),
      /environment WF_RUN_MAX_HISTORY: "lots" is not a number of events/,
    );
  });

  void test("WF_RUN_QUARANTINE_AFTER: 25 by default, set by the environment, never off", () => {
    assert.equal(load({}).runQuarantineAfter, 25);
    assert.equal(load({ env: { ...DEV, WF_RUN_QUARANTINE_AFTER: "3" } }).runQuarantineAfter, 3);
    for (const bad of ["0", "off", "-1", "1.5", "lots"]) {
      assert.match(
        configError(() => load({ env: { ...DEV, WF_RUN_QUARANTINE_AFTER: bad } })),
        /environment WF_RUN_QUARANTINE_AFTER: .* is not a number of executions between 1 and 10000/,
      );
    }
  });
});

void describe("load shedding and SQLite synchronous", () => {
  void test("defaults: shedding on at 1024 in flight and 500 ms of delay; SQLite NORMAL", () => {
    const c = load({});
    assert.equal(c.maxInFlight, 1024);
    assert.equal(c.maxEventLoopDelay, 500);
    assert.equal(c.sqliteSynchronous, "normal");
  });

  void test("from the environment; 0 and off disable a limit; any case for synchronous", () => {
    const c = load({
      env: {
        ...DEV,
        WF_MAX_IN_FLIGHT: "64",
        WF_MAX_EVENT_LOOP_DELAY: "off",
        WF_SQLITE_SYNCHRONOUS: "FULL",
      },
    });
    assert.equal(c.maxInFlight, 64);
    assert.equal(c.maxEventLoopDelay, 0);
    assert.equal(c.sqliteSynchronous, "full");
    assert.equal(load({ env: { ...DEV, WF_MAX_IN_FLIGHT: "0" } }).maxInFlight, 0);
    const f = load({
      configFile: "t.json",
      readFile: files({ "t.json": '{"maxInFlight": 10, "sqliteSynchronous": "normal"}' }),
    });
    assert.equal(f.maxInFlight, 10);
    assert.equal(f.sqliteSynchronous, "normal");
  });

  void test("bad values fail naming the layer and the setting", () => {
    assert.match(
      configError(() => load({ env: { ...DEV, WF_SQLITE_SYNCHRONOUS: "fast" } })),
      /environment WF_SQLITE_SYNCHRONOUS: "fast" is not one of normal, full/,
    );
    assert.match(
      configError(() => load({ env: { ...DEV, WF_MAX_IN_FLIGHT: "-1" } })),
      /environment WF_MAX_IN_FLIGHT: "-1" is not a number of requests/,
    );
    assert.match(
      configError(() => load({ env: { ...DEV, WF_MAX_EVENT_LOOP_DELAY: "5" } })),
      /environment WF_MAX_EVENT_LOOP_DELAY: "5" is not a number of milliseconds between 10 and 60000/,
    );
    assert.match(
      configError(() =>
        load({ configFile: "t.json", readFile: files({ "t.json": '{"maxInFlight": 1.5}' }) }),
      ),
      /config file t\.json maxInFlight: /,
    );
    assert.match(
      configError(() => load({ overrides: { sqliteSynchronous: "off" } })),
      /code overrides sqliteSynchronous: /,
    );
  });
});

void describe("trigger response timeout", () => {
  void test("default 5000 ms; environment, file and code layers; off and 0 never wait", () => {
    assert.equal(load({}).triggerResponseTimeout, 5000);
    assert.equal(
      load({ env: { ...DEV, WF_TRIGGER_RESPONSE_TIMEOUT: "250" } }).triggerResponseTimeout,
      250,
    );
    assert.equal(
      load({ env: { ...DEV, WF_TRIGGER_RESPONSE_TIMEOUT: "off" } }).triggerResponseTimeout,
      0,
    );
    const f = load({
      configFile: "t.json",
      readFile: files({ "t.json": '{"triggerResponseTimeout": 1000}' }),
      env: { ...DEV, WF_TRIGGER_RESPONSE_TIMEOUT: "2000" },
    });
    assert.equal(f.triggerResponseTimeout, 2000, "the environment over the file");
    assert.equal(
      load({ overrides: { triggerResponseTimeout: 0 } }).triggerResponseTimeout,
      0,
      "code over the defaults",
    );
  });

  void test("bad values fail naming the layer and the setting", () => {
    assert.match(
      configError(() => load({ env: { ...DEV, WF_TRIGGER_RESPONSE_TIMEOUT: "5s" } })),
      /environment WF_TRIGGER_RESPONSE_TIMEOUT: "5s" is not a number of milliseconds between 0 and 60000/,
    );
    assert.match(
      configError(() =>
        load({
          configFile: "t.json",
          readFile: files({ "t.json": '{"triggerResponseTimeout": 60001}' }),
        }),
      ),
      /config file t\.json triggerResponseTimeout: 60001 is not a number of milliseconds/,
    );
  });
});
