/** The Console's settings through loadConfig, and its start-time choices (console-start.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError } from "../../../src/config/config-error.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { LogCodeSender } from "../../../src/console/code-sender.ts";
import {
  assertCanLogIn,
  canLogIn,
  consoleEngineKey,
  loginMethods,
  loopbackUrl,
} from "../../../src/console/console-start.ts";

const KEY = "k".repeat(30);
const load = (env: Record<string, string>) =>
  loadConfig({ env: { NODE_ENV: "production", WF_API_KEYS: KEY, ...env } });

test("defaults: SSO off, no role groups, 15 min sessions in 8 h logins, no pages directory", () => {
  const c = load({});
  assert.equal(c.consoleTrustedHeader, null);
  assert.deepEqual(c.consoleTrustedProxies, []);
  assert.deepEqual([c.consoleOperatorGroups, c.consoleAdminGroups], [[], []]);
  assert.deepEqual([c.consoleSessionTtl, c.consoleRefreshTtl], [900_000, 28_800_000]);
  assert.deepEqual([c.consoleApiKey, c.consoleStaticDir, c.consoleOrigins], [null, null, []]);
  assert.equal(c.consoleTenant, "default");
});

test("the environment sets every Console setting", () => {
  const c = load({
    WF_CONSOLE_API_KEY: "c".repeat(32),
    WF_CONSOLE_TRUSTED_HEADER: "X-Forwarded-User",
    WF_CONSOLE_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
    WF_CONSOLE_OPERATOR_GROUPS: "ops",
    WF_CONSOLE_ADMIN_GROUPS: "admins,root",
    WF_CONSOLE_ORIGINS: "https://console.example.com",
    WF_CONSOLE_SESSION_TTL: "60000",
    WF_CONSOLE_REFRESH_TTL: "3600000",
    WF_CONSOLE_STATIC_DIR: "./console/dist",
    WF_CONSOLE_TENANT: " acme-eu ",
  });
  assert.equal(c.consoleTenant, "acme-eu");
  assert.equal(c.consoleTrustedHeader, "x-forwarded-user");
  assert.deepEqual(c.consoleTrustedProxies, ["10.0.0.0/8", "::1"]);
  assert.deepEqual(c.consoleAdminGroups, ["admins", "root"]);
  assert.deepEqual(c.consoleOrigins, ["https://console.example.com"]);
  assert.equal(c.consoleSessionTtl, 60_000);
  assert.equal(c.consoleStaticDir, "./console/dist");
});

test("bad values name the variable; the key is never echoed", () => {
  const bad: [Record<string, string>, RegExp][] = [
    [
      { WF_CONSOLE_TRUSTED_PROXIES: "10.0.0.0/33", WF_CONSOLE_TRUSTED_HEADER: "X-U" },
      /environment WF_CONSOLE_TRUSTED_PROXIES: .*not an IP/,
    ],
    [{ WF_CONSOLE_TRUSTED_HEADER: "X User" }, /environment WF_CONSOLE_TRUSTED_HEADER/],
    [
      { WF_CONSOLE_ORIGINS: "https://x.example/path" },
      /environment WF_CONSOLE_ORIGINS: .*not an origin/,
    ],
    [{ WF_CONSOLE_SESSION_TTL: "5" }, /environment WF_CONSOLE_SESSION_TTL/],
    [{ WF_CONSOLE_API_KEY: "a b" }, /environment WF_CONSOLE_API_KEY/],
    [{ WF_CONSOLE_TENANT: "a/b" }, /environment WF_CONSOLE_TENANT: must be a tenant id/],
    [{ WF_CONSOLE_TENANT: "t".repeat(65) }, /environment WF_CONSOLE_TENANT/],
    [{ WF_CONSOLE_TENANT: "_taskflow" }, /environment WF_CONSOLE_TENANT: _taskflow holds/],
    [{ WF_CONSOLE_TRUSTED_HEADER: "X-Forwarded-User" }, /WF_CONSOLE_TRUSTED_PROXIES is empty/],
    [{ WF_CONSOLE_OIDC_ISSUER: "https://id.example.com" }, /WF_CONSOLE_OIDC_CLIENT_ID is not/],
    [{ WF_CONSOLE_OIDC_ISSUER: "https://id.example.com" }, /WF_CONSOLE_OIDC_REDIRECT_URL is not/],
    [{ WF_CONSOLE_OIDC_CLIENT_ID: "console" }, /but WF_CONSOLE_OIDC_ISSUER is not/],
    [{ WF_CONSOLE_OIDC_ISSUER: "http://id.example.com" }, /WF_CONSOLE_OIDC_ISSUER: must be https/],
    [{ WF_CONSOLE_OIDC_ISSUER: "not a url" }, /WF_CONSOLE_OIDC_ISSUER: must be/],
    [
      { WF_CONSOLE_OIDC_REDIRECT_URL: "https://c.example.com/elsewhere" },
      /WF_CONSOLE_OIDC_REDIRECT_URL: must be the Console's callback/,
    ],
    [{ WF_CONSOLE_OIDC_USER_CLAIM: "a b" }, /WF_CONSOLE_OIDC_USER_CLAIM: must be a claim name/],
    [{ WF_CONSOLE_SESSION_TTL: "3600000", WF_CONSOLE_REFRESH_TTL: "600000" }, /shorter than/],
  ];
  for (const [env, message] of bad) {
    assert.throws(
      () => load(env),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, message);
        assert.ok(!e.message.includes("a b"));
        return true;
      },
    );
  }
});

test("start: outside development a login needs a sender, OpenID Connect or a trusted proxy", () => {
  const prod = load({});
  assert.equal(canLogIn(loginMethods(prod, undefined)), false);
  assert.throws(
    () => assertCanLogIn(prod, undefined),
    /WF_CONSOLE_OIDC_ISSUER.*WF_CONSOLE_TRUSTED_HEADER.*CodeSender/,
  );
  assert.deepEqual(loginMethods(prod, { send: () => Promise.resolve() }), {
    code: "host",
    oidc: false,
    trustedHeader: false,
  });
  const sso = load({ WF_CONSOLE_TRUSTED_HEADER: "X-U", WF_CONSOLE_TRUSTED_PROXIES: "10.0.0.1" });
  assert.deepEqual(loginMethods(sso, undefined), { code: "off", oidc: false, trustedHeader: true });
  const oidc = load({
    WF_CONSOLE_OIDC_ISSUER: "https://id.example.com/",
    WF_CONSOLE_OIDC_CLIENT_ID: "console",
    WF_CONSOLE_OIDC_REDIRECT_URL: "https://c.example.com/console/api/auth/oidc/callback",
  });
  assert.deepEqual(loginMethods(oidc, undefined), {
    code: "off",
    oidc: true,
    trustedHeader: false,
  });
  assert.equal(oidc.consoleOidcIssuer, "https://id.example.com/");
  assert.deepEqual(oidc.consoleOidcScopes, ["openid"]);
  assert.equal(oidc.consoleOidcUserClaim, "sub");
  assert.equal(loginMethods(load({ NODE_ENV: "development" }), undefined).code, "log");
  // The proxies alone (no trusted header): their X-Forwarded-For names the client.
  assert.deepEqual(load({ WF_CONSOLE_TRUSTED_PROXIES: "10.0.0.1" }).consoleTrustedProxies, [
    "10.0.0.1",
  ]);
  assert.throws(
    () => new LogCodeSender({ info: () => undefined }, "production"),
    /NODE_ENV=development/,
  );
});

test("start: the engine key is WF_CONSOLE_API_KEY, else the first of WF_API_KEYS", () => {
  assert.equal(consoleEngineKey(load({})), KEY);
  assert.equal(consoleEngineKey(load({ WF_CONSOLE_API_KEY: "s".repeat(40) })), "s".repeat(40));
  const storedOnly = loadConfig({ env: { NODE_ENV: "production" }, requireApiKeys: false });
  assert.throws(() => consoleEngineKey(storedOnly), /WF_CONSOLE_API_KEY/);
  assert.throws(() => consoleEngineKey(load({ WF_CONSOLE_API_KEY: "short" })), /at least 24/);
  assert.equal(consoleEngineKey(loadConfig({ env: { NODE_ENV: "development" } })), null);
});

test("loopbackUrl: a wildcard listener is reached over loopback", () => {
  assert.equal(
    loopbackUrl({ address: "0.0.0.0", port: 8081, family: "IPv4" }),
    "http://127.0.0.1:8081",
  );
  assert.equal(loopbackUrl({ address: "::", port: 1, family: "IPv6" }), "http://[::1]:1");
  assert.equal(loopbackUrl({ address: "10.0.0.5", port: 2, family: "IPv4" }), "http://10.0.0.5:2");
  assert.throws(() => loopbackUrl(null));
});
