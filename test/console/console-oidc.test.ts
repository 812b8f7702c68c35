/**
 * The Console's OpenID Connect login against a real provider (oidc-provider,
 * started here on a free port), on SQLite in production: the browser goes to
 * the provider and back with a code, the Console trades it (PKCE, state and
 * nonce checked) and the claim it is told names the directory user. What a
 * login page offers follows what is configured: here no code form.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import {
  browser,
  consoleTestOptions,
  jarFrom,
  setCookies,
  startConsoleNode,
  type ConsoleNode,
} from "./support/console-node.ts";
import { startTestProvider, type TestProvider } from "./support/oidc-test-provider.ts";

const CALLBACK = "https://console.test/console/api/auth/oidc/callback";

void describe("console login by OpenID Connect (sqlite, real provider)", async () => {
  const options = await consoleTestOptions("sqlite");
  let provider: TestProvider;
  let node: ConsoleNode;
  const lines: string[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  before(async () => {
    provider = await startTestProvider(CALLBACK);
    node = await startConsoleNode(
      "sqlite",
      {
        consoleOidcIssuer: provider.issuer,
        consoleOidcClientId: provider.clientId,
        consoleOidcClientSecret: provider.clientSecret,
        consoleOidcRedirectUrl: CALLBACK,
        consoleOidcUserClaim: "preferred_username",
        consoleOidcScopes: "openid profile",
      },
      { withSender: false, logger },
    );
  });
  after(async () => {
    await node?.close();
    await provider?.close();
  });

  /** The browser's way to the provider and back to the callback, as its address. */
  async function toCallback(user: string) {
    const start = await node.call({ method: "GET", url: "/console/api/auth/oidc/start" });
    assert.equal(start.statusCode, 302, start.body);
    const flow = setCookies(start).get("tf_oidc");
    assert.match(
      flow ?? "",
      /; Path=\/console\/api\/auth\/oidc; Max-Age=600; HttpOnly; Secure; SameSite=Lax/,
    );
    const to = new URL(String(start.headers.location));
    assert.equal(to.origin, provider.issuer);
    assert.equal(to.searchParams.get("code_challenge_method"), "S256");
    assert.equal(to.searchParams.get("redirect_uri"), CALLBACK);
    assert.ok(to.searchParams.get("state") && to.searchParams.get("nonce"));
    provider.nextUser = user;
    const back = await provider.authorize(to.href);
    assert.equal(`${back.origin}${back.pathname}`, CALLBACK, back.href);
    assert.ok(back.searchParams.get("code"), back.href);
    return { cookie: browser(jarFrom(start)).read(), back };
  }

  const callback = (back: URL, headers: Record<string, string> = {}) =>
    node.call({ method: "GET", url: `${back.pathname}${back.search}`, headers });

  void it(
    "the login page is offered OpenID Connect only; the code routes are not there",
    options,
    async () => {
      const methods = await node.call({ method: "GET", url: "/console/api/auth/methods" });
      assert.equal(methods.statusCode, 200, methods.body);
      assert.deepEqual(methods.json(), { code: false, oidc: true, trustedHeader: false });
      const code = await node.call({
        method: "POST",
        url: "/console/api/auth/code",
        headers: { origin: "http://console.test" },
        payload: { userId: "bob" },
      });
      assert.equal(code.statusCode, 404, code.body);
    },
  );

  void it(
    "a user of the directory logs in through the provider and gets the Console's login",
    options,
    async () => {
      const { cookie, back } = await toCallback("carol");
      const done = await callback(back, cookie);
      assert.equal(done.statusCode, 303, done.body);
      assert.equal(done.headers.location, "https://console.test/console/");
      const cookies = setCookies(done);
      assert.match(cookies.get("tf_oidc") ?? "", /Max-Age=0/, "the flow cookie is cleared");
      for (const name of ["tf_session", "tf_refresh", "tf_csrf"])
        assert.ok(cookies.has(name), name);
      const code = back.searchParams.get("code") ?? "";
      assert.ok(
        lines.some((l) => l.includes("/console/api/auth/oidc/callback")),
        "it was logged",
      );
      assert.ok(!lines.some((l) => l.includes(code)), "the provider's code is not in the log");
      assert.ok(!lines.some((l) => l.includes(provider.clientSecret)), "nor the client secret");
      const b = browser(jarFrom(done));
      const session = await node.call({
        method: "GET",
        url: "/console/api/session",
        headers: b.read(),
      });
      assert.equal(session.statusCode, 200, session.body);
      const s = session.json<{ userId: string; roles: string[] }>();
      assert.equal(s.userId, "carol", "the preferred_username claim, not sub");
      assert.ok(s.roles.includes("operator"), "roles from the directory, as any login");
      // The provider's answer is good once: the flow was used up.
      const replay = await callback(back, cookie);
      assert.equal(replay.statusCode, 303);
      assert.equal(replay.headers.location, "https://console.test/console/?loginError=expired");
      assert.equal(setCookies(replay).has("tf_session"), false);
    },
  );

  void it(
    "the callback is refused in a browser that did not start the flow, and for a forged state",
    options,
    async () => {
      const { cookie, back } = await toCallback("bob");
      const stranger = await callback(back);
      assert.equal(stranger.headers.location, "https://console.test/console/?loginError=expired");
      assert.equal(setCookies(stranger).has("tf_session"), false);
      // The flow of this browser, answered with another state: the code is not traded.
      const forged = new URL(back);
      forged.searchParams.set("state", "forged-state");
      const refused = await callback(forged, cookie);
      assert.equal(refused.headers.location, "https://console.test/console/?loginError=refused");
      assert.equal(setCookies(refused).has("tf_session"), false);
    },
  );

  void it(
    "a person the provider knows but the directory does not gets no login",
    options,
    async () => {
      const { cookie, back } = await toCallback("mallory");
      const done = await callback(back, cookie);
      assert.equal(done.headers.location, "https://console.test/console/?loginError=unknown-user");
      assert.equal(setCookies(done).has("tf_session"), false);
    },
  );
});

void describe("console login by OpenID Connect with its provider down (sqlite)", async () => {
  const options = await consoleTestOptions("sqlite");
  void it("the Console starts; a login start is a 503 naming no secret", options, async () => {
    const node = await startConsoleNode(
      "sqlite",
      {
        consoleOidcIssuer: "http://127.0.0.1:9",
        consoleOidcClientId: "taskflow-console",
        consoleOidcClientSecret: "the-client-secret-value",
        consoleOidcRedirectUrl: CALLBACK,
      },
      { withSender: false },
    );
    try {
      const start = await node.call({ method: "GET", url: "/console/api/auth/oidc/start" });
      assert.equal(start.statusCode, 503, start.body);
      assert.equal(start.json<{ code: string }>().code, "Unavailable");
      assert.ok(!start.body.includes("the-client-secret-value"));
    } finally {
      await node.close();
    }
  });
});

void describe("console login by OpenID Connect naming users by email (sqlite, real provider)", async () => {
  const options = await consoleTestOptions("sqlite");
  void it(
    "a verified address logs in; an address the provider did not verify names nobody",
    options,
    async () => {
      const provider = await startTestProvider(CALLBACK);
      const node = await startConsoleNode(
        "sqlite",
        {
          users: "bob@example.com,unverified@example.com",
          groups: {},
          consoleOidcIssuer: provider.issuer,
          consoleOidcClientId: provider.clientId,
          consoleOidcClientSecret: provider.clientSecret,
          consoleOidcRedirectUrl: CALLBACK,
          consoleOidcUserClaim: "email",
          consoleOidcScopes: "openid email",
        },
        { withSender: false },
      );
      try {
        const login = async (user: string) => {
          const start = await node.call({ method: "GET", url: "/console/api/auth/oidc/start" });
          provider.nextUser = user;
          const back = await provider.authorize(String(start.headers.location));
          return node.call({
            method: "GET",
            url: `${back.pathname}${back.search}`,
            headers: browser(jarFrom(start)).read(),
          });
        };
        const bob = await login("bob");
        assert.equal(bob.headers.location, "https://console.test/console/", bob.body);
        const session = await node.call({
          method: "GET",
          url: "/console/api/session",
          headers: browser(jarFrom(bob)).read(),
        });
        assert.equal(session.json<{ userId: string }>().userId, "bob@example.com");
        const unverified = await login("unverified");
        assert.equal(
          unverified.headers.location,
          "https://console.test/console/?loginError=unknown-user",
        );
        assert.equal(setCookies(unverified).has("tf_session"), false);
      } finally {
        await node.close();
        await provider.close();
      }
    },
  );
});
