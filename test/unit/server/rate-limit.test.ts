import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { pino } from "pino";
import { ConfigError } from "../../../src/config/config-error.ts";
import { loadConfig, type LoadConfigOptions } from "../../../src/config/load-config.ts";
import { formatRateLimit, parseRateLimit } from "../../../src/config/parse-rate-limit.ts";
import { installErrorHandling } from "../../../src/server/errors/error-mapping.ts";
import { requireApiKey } from "../../../src/server/hooks/auth.ts";
import type {
  RateLimiter,
  RateLimiters,
} from "../../../src/engine/coordination/rate-limiter-port.ts";
import { installRateLimit } from "../../../src/server/hooks/rate-limit.ts";
import { authed, KEY, sampleTask, stubServer } from "./stub-engine.ts";

const getTask = () => Promise.resolve(sampleTask());
const limited = (rateLimit: string, apiKeys: string[] = [KEY]) =>
  stubServer({ getTask }, { overrides: { rateLimit, apiKeys } });

type App = Awaited<ReturnType<typeof stubServer>>;
const get = (app: App, headers: Record<string, string>, url = "/v1/tasks/t1") =>
  app.inject({ url, headers });

async function spend(app: App, n: number, headers: Record<string, string>) {
  for (let i = 0; i < n; i++) {
    const r = await get(app, headers);
    assert.equal(r.statusCode, 200, `request ${i + 1} of ${n} is within the budget`);
  }
}

function assertRateLimited(r: Awaited<ReturnType<App["inject"]>>) {
  assert.equal(r.statusCode, 429);
  assert.match(String(r.headers["content-type"]), /^application\/problem\+json/);
  const p = r.json<Record<string, unknown>>();
  assert.deepEqual(Object.keys(p).sort(), ["code", "detail", "reason", "status", "title", "type"]);
  assert.equal(p.code, "RateLimited");
  assert.equal(p.status, 429);
  assert.equal(p.type, "urn:taskflow:problem:RateLimited");
  assert.match(String(p.detail), /5\/1m/);
  // Whole seconds, rounded up, at most the window.
  const retryAfter = Number(r.headers["retry-after"]);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${retryAfter}`);
  return p;
}

void describe("rate limit over HTTP", () => {
  void test("5/1m: five requests pass, the 6th is 429 RateLimited with Retry-After", async () => {
    const app = await limited("5/1m");
    await spend(app, 5, authed());
    const p = assertRateLimited(await get(app, authed()));
    assert.ok(!String(p.detail).includes(KEY), "the key is not echoed");
    await app.close();
  });

  void test("the budget comes back after the window", async () => {
    const app = await limited("2/1s");
    await spend(app, 2, authed());
    const r = await get(app, authed());
    assert.equal(r.statusCode, 429);
    assert.equal(r.headers["retry-after"], "1");
    await new Promise((resolve) => setTimeout(resolve, Number(r.headers["retry-after"]) * 1000));
    assert.equal((await get(app, authed())).statusCode, 200);
    await app.close();
  });

  void test("tenants have separate budgets; no X-Tenant-Id is tenant 'default'", async () => {
    const app = await limited("5/1m");
    await spend(app, 5, { ...authed(), "x-tenant-id": "acme" });
    assert.equal((await get(app, { ...authed(), "x-tenant-id": "acme" })).statusCode, 429);
    await spend(app, 5, { ...authed(), "x-tenant-id": "globex" });
    await spend(app, 3, authed());
    await spend(app, 2, { ...authed(), "x-tenant-id": "default" });
    assert.equal((await get(app, authed())).statusCode, 429, "default is one budget");
    await app.close();
  });

  void test("keys have separate budgets; actors share their key's and tenant's", async () => {
    const other = "test-key-2-0123456789abcdefghijkl";
    const app = await limited("5/1m", [KEY, other]);
    for (const actor of ["a1", "a2", "a3", "a4", "a5"]) await spend(app, 1, authed(actor));
    assert.equal((await get(app, authed("a6"))).statusCode, 429, "a new actor gets no budget");
    await spend(app, 5, { ...authed(), "x-api-key": other });
    assert.equal((await get(app, { ...authed(), "x-api-key": other })).statusCode, 429);
    await app.close();
  });

  void test("a request without a valid key is 401 and spends no budget", async () => {
    const app = await limited("5/1m");
    for (let i = 0; i < 10; i++) {
      const r = await get(app, { ...authed(), "x-api-key": "wrong" });
      assert.equal(r.statusCode, 401);
    }
    await spend(app, 5, authed());
    await app.close();
  });

  void test("/healthz, /openapi.json and /docs are exempt", async () => {
    const app = await limited("5/1m");
    await spend(app, 5, authed());
    assert.equal((await get(app, authed())).statusCode, 429);
    for (const url of ["/healthz", "/openapi.json", "/docs"]) {
      for (let i = 0; i < 10; i++) {
        const r = await get(app, authed(), url);
        assert.ok(r.statusCode < 400, `${url} answers ${r.statusCode}`);
      }
    }
    await app.close();
  });

  void test("off by default: many requests, no 429", async () => {
    const app = await stubServer({ getTask });
    await spend(app, 200, authed());
    await app.close();
  });

  void test("limiter keys name the key by position and the tenant, never the key", async () => {
    const seen: string[] = [];
    const recording = limitersOf({
      consume: (tenant, key) => {
        seen.push(`${tenant} ${key}`);
        return Promise.resolve({ allowed: true, remaining: 1, retryAfterMs: 0 });
      },
    });
    const app = Fastify();
    installErrorHandling(app);
    app.addHook("onRequest", requireApiKey(["k0-0123456789abcdefghijkl", KEY]));
    installRateLimit(app, { rateLimit: { points: 5, durationSeconds: 1 } }, recording);
    app.get("/x", () => ({ ok: true }));
    await app.inject({ url: "/x", headers: { "x-api-key": KEY } });
    await app.inject({ url: "/x", headers: { "x-api-key": KEY, "x-tenant-id": "acme" } });
    await app.inject({ url: "/x", headers: { "x-api-key": KEY, "x-tenant-id": "bad tenant!" } });
    assert.deepEqual(seen, ["default key#2|default", "acme key#2|acme", "default key#2|~invalid"]);
    await app.close();
  });

  void test("a failing limiter lets requests through and warns once, not per request", async () => {
    const logged: string[] = [];
    const logTo = new Writable({
      write: (c: Buffer, _e, done) => (logged.push(c.toString()), done()),
    });
    const loggerInstance: FastifyBaseLogger = pino({ level: "info" }, logTo);
    const app = Fastify({ loggerInstance });
    installErrorHandling(app);
    installRateLimit(app, { rateLimit: { points: 1, durationSeconds: 1 } }, broken);
    app.get("/x", () => ({ ok: true }));
    for (let i = 0; i < 5; i++) {
      const r = await app.inject({ url: "/x", headers: { "x-api-key": KEY } });
      assert.equal(r.statusCode, 200);
    }
    const warnings = logged.filter((l) => l.includes("rate limiter failed"));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /ECONNREFUSED/);
    assert.ok(!logged.join("").includes(KEY), "the key is never logged");
    await app.close();
  });
});

void test("on error closed: a failing limiter refuses with 503 Unavailable and Retry-After", async () => {
  const app = Fastify();
  installErrorHandling(app);
  const settings = {
    rateLimit: { points: 1, durationSeconds: 1 },
    rateLimitOnError: "closed" as const,
  };
  installRateLimit(app, settings, broken);
  app.get("/x", () => ({ ok: true }));
  for (let i = 0; i < 3; i++) {
    const r = await app.inject({ url: "/x", headers: { "x-api-key": KEY } });
    assert.equal(r.statusCode, 503);
    assert.equal(r.json<{ code: string }>().code, "Unavailable");
    assert.equal(r.headers["retry-after"], "2");
  }
  await app.close();
});

function limitersOf(limiter: Pick<RateLimiter, "consume">): RateLimiters {
  return {
    limiter: () => ({ ...limiter, reset: () => Promise.resolve() }),
    cleanup: () => Promise.resolve(0),
  };
}

const broken = limitersOf({
  consume: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379")),
});

const load = (o: LoadConfigOptions) => loadConfig({ env: { NODE_ENV: "development" }, ...o });

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
    return e.message;
  }
  assert.fail("expected a ConfigError");
}

void describe("rate limit setting", () => {
  void test("off by default", () => {
    assert.equal(load({}).rateLimit, null);
  });

  void test("WF_RATE_LIMIT forms", () => {
    const cases: [string, { points: number; durationSeconds: number } | null][] = [
      ["2000/1s", { points: 2000, durationSeconds: 1 }],
      ["2000/s", { points: 2000, durationSeconds: 1 }],
      [" 100 / 10s ", { points: 100, durationSeconds: 10 }],
      ["100/1m", { points: 100, durationSeconds: 60 }],
      ["10000/H", { points: 10000, durationSeconds: 3600 }],
      ["off", null],
      ["OFF", null],
      ["0", null],
    ];
    for (const [value, expected] of cases) {
      const env = { NODE_ENV: "development", WF_RATE_LIMIT: value };
      assert.deepEqual(load({ env }).rateLimit, expected, value);
    }
  });

  void test("file and code layers; later layers win", () => {
    const readFile = () => JSON.stringify({ rateLimit: "10/1m" });
    assert.deepEqual(load({ configFile: "t.json", readFile }).rateLimit, {
      points: 10,
      durationSeconds: 60,
    });
    const env = { NODE_ENV: "development", WF_RATE_LIMIT: "20/1s" };
    assert.equal(load({ configFile: "t.json", readFile, env }).rateLimit?.points, 20);
    const overrides = { rateLimit: { points: 7, durationSeconds: 2 } };
    assert.deepEqual(load({ configFile: "t.json", readFile, env, overrides }).rateLimit, {
      points: 7,
      durationSeconds: 2,
    });
    assert.equal(load({ env, overrides: { rateLimit: false } }).rateLimit, null);
  });

  void test("a bad value names the layer and the key", () => {
    const env = (v: string) => ({ env: { NODE_ENV: "development", WF_RATE_LIMIT: v } });
    assert.match(
      configError(() => load(env("abc"))),
      /^config error: environment WF_RATE_LIMIT: "abc" must be "<requests>\/<window>"/,
    );
    for (const [v, why] of [
      ["0/1s", /number of requests must be an integer between 1/],
      ["5/0s", /window must be a whole number of seconds/],
      ["5/25h", /window must be a whole number of seconds/],
      ["5/1d", /must be "<requests>\/<window>"/],
      ["5.5/1s", /must be "<requests>\/<window>"/],
      ["-1", /must be "<requests>\/<window>"/],
    ] as const) {
      const message = configError(() => load(env(v)));
      assert.match(message, /environment WF_RATE_LIMIT: /, v);
      assert.match(message, why, v);
    }
    const readFile = () => JSON.stringify({ rateLimit: 5 });
    assert.match(
      configError(() => load({ configFile: "t.json", readFile })),
      /config file t\.json rateLimit: 5 must be/,
    );
    assert.match(
      configError(() => load({ overrides: { rateLimit: { points: 5, durationSeconds: 0.5 } } })),
      /code overrides rateLimit: .*window must be a whole number of seconds/,
    );
  });

  void test("formatRateLimit writes a budget back as it is configured", () => {
    for (const s of ["2000/1s", "5/90s", "100/1m", "10000/2h"]) {
      assert.equal(formatRateLimit(parseRateLimit(s)!), s);
    }
  });
});
