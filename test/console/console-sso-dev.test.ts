/**
 * The Console's other ways in, on SQLite: the trusted header of an
 * authenticating proxy (only from WF_CONSOLE_TRUSTED_PROXIES), and the
 * development login whose code is written to the log. And the start-time
 * refusals of a Console that could not log anyone in or reach the engine.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import pino from "pino";
import {
  API_KEY,
  browser,
  logIn,
  consoleTestOptions,
  jarFrom,
  ORIGIN,
  setCookies,
  startConsoleNode,
} from "./support/console-node.ts";

const SSO = {
  consoleTrustedHeader: "X-Forwarded-User",
  consoleTrustedProxies: "10.1.0.0/16, 192.0.2.7",
};
const PROXY = "10.1.2.3";

/** A pino logger at info whose lines the test reads. */
function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: pino({ level: "info" }, sink) };
}

void describe("console behind an authenticating proxy (sqlite)", async () => {
  const options = await consoleTestOptions("sqlite");

  void it(
    "the trusted header is refused from any other peer, accepted from a trusted proxy",
    options,
    async () => {
      const node = await startConsoleNode("sqlite", SSO, { withSender: false });
      try {
        const session = (remoteAddress: string, user: string, cookie?: string) =>
          node.call({
            method: "GET",
            url: "/console/api/session",
            remoteAddress,
            headers: { "x-forwarded-user": user, ...(cookie === undefined ? {} : { cookie }) },
          });
        for (const peer of ["127.0.0.1", "10.2.0.1", "192.0.2.8"]) {
          const r = await session(peer, "bob");
          assert.equal(r.statusCode, 403, `${peer}: ${r.body}`);
          assert.equal(r.json<{ code: string }>().code, "Forbidden");
          assert.equal(setCookies(r).size, 0, `${peer}: no login`);
        }
        const first = await session(PROXY, "bob");
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.json<{ userId: string }>().userId, "bob");
        const jar = jarFrom(first);
        assert.ok(jar.tf_session && jar.tf_refresh && jar.tf_csrf, "a login was issued");
        // The login is reused while the proxy keeps naming the same user.
        const again = await session("::ffff:192.0.2.7", "bob", browser(jar).read().cookie);
        assert.equal(again.statusCode, 200, again.body);
        assert.equal(setCookies(again).size, 0);
        // Another user named by the proxy gets a login of their own, not bob's.
        const carol = await session(PROXY, "carol", browser(jar).read().cookie);
        assert.equal(carol.json<{ userId: string }>().userId, "carol");
        assert.equal(setCookies(carol).size, 3);
        const stranger = await session(PROXY, "mallory");
        assert.equal(stranger.statusCode, 403, "a user the directory does not know");
        // Without a sender, outside development, there is no code login at all.
        const code = await node.call({
          method: "POST",
          url: "/console/api/auth/code",
          remoteAddress: PROXY,
          headers: { origin: ORIGIN },
          payload: { userId: "bob" },
        });
        assert.equal(code.statusCode, 404, code.body);
        // And the login page is told so: it offers no code form.
        const methods = await node.call({ method: "GET", url: "/console/api/auth/methods" });
        assert.equal(methods.statusCode, 200, methods.body);
        assert.deepEqual(methods.json(), { code: false, oidc: false, trustedHeader: true });
      } finally {
        await node.close();
      }
    },
  );

  void it(
    "a client without cookies behind the proxy leaves no login row per request, and cannot write",
    options,
    async () => {
      const node = await startConsoleNode("sqlite", SSO, { withSender: false });
      const db = new Database(node.databaseUrl.replace(/^sqlite:/, ""), { readonly: true });
      try {
        const rows = () =>
          (db.prepare("select count(*) as n from coordination_tokens").get() as { n: number }).n;
        const before = rows();
        const asBob = { "x-forwarded-user": "bob" };
        for (let i = 0; i < 150; i++) {
          const r = await node.call({
            method: "GET",
            url: "/console/api/engine/tasks",
            remoteAddress: PROXY,
            headers: asBob,
          });
          assert.equal(r.statusCode, 200, r.body);
          assert.equal(setCookies(r).size, 0, "no login issued to a cookieless read");
        }
        assert.equal(rows(), before, "no token row per cookieless request");
        // Without a login there is no CSRF token: a mutation is refused, nothing written.
        const write = await node.call({
          method: "POST",
          url: "/console/api/engine/tasks/t-1/claim",
          remoteAddress: PROXY,
          headers: { ...asBob, origin: ORIGIN, "x-csrf-token": "made-up" },
        });
        assert.equal(write.statusCode, 403, write.body);
        assert.equal(rows(), before);
        // The page's first call is where the login is issued: two tokens, once.
        const session = await node.call({
          method: "GET",
          url: "/console/api/session",
          remoteAddress: PROXY,
          headers: asBob,
        });
        assert.equal(session.statusCode, 200, session.body);
        assert.equal(setCookies(session).size, 3);
        assert.equal(rows(), before + 2, "a refresh and a session token");
      } finally {
        db.close();
        await node.close();
      }
    },
  );

  void it(
    "production: neither the login code nor the API key reaches the log",
    options,
    async () => {
      const { lines, logger } = capture();
      const node = await startConsoleNode("sqlite", {}, { logger });
      try {
        const b = await logIn(node, "bob");
        await node.call({ method: "GET", url: "/console/api/engine/tasks", headers: b.read() });
        const code = node.sender.last("bob");
        assert.ok(lines.length > 3, "the node logged its requests");
        assert.ok(!lines.some((l) => l.includes(`"${code}"`)), "the code is not logged");
        assert.ok(!lines.some((l) => l.includes(API_KEY)), "the API key is not logged");
      } finally {
        await node.close();
      }
    },
  );

  void it(
    "development: the code goes to the log with the user id; cookies without Secure",
    options,
    async () => {
      const { lines, logger } = capture();
      const node = await startConsoleNode(
        "sqlite",
        { nodeEnv: "development" },
        { logger, withSender: false },
      );
      try {
        const asked = await node.call({
          method: "POST",
          url: "/console/api/auth/code",
          headers: { origin: ORIGIN },
          payload: { userId: "bob" },
        });
        assert.equal(asked.statusCode, 202, asked.body);
        const line = lines
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.loginCode);
        assert.ok(line, "the code was logged");
        assert.equal(line.userId, "bob");
        assert.equal(line.level, 30, "at info");
        const verified = await node.call({
          method: "POST",
          url: "/console/api/auth/verify",
          headers: { origin: ORIGIN, ...browser(jarFrom(asked)).read() },
          payload: { userId: "bob", code: String(line.loginCode) },
        });
        assert.equal(verified.statusCode, 200, verified.body);
        assert.ok(!lines.some((l) => l.includes(API_KEY)), "the API key is not logged");
        assert.ok(!lines.some((l) => l.includes(API_KEY)), "the API key is not logged");
        for (const [name, set] of setCookies(verified)) {
          assert.doesNotMatch(set, /Secure/, `${name} has no Secure in development`);
          assert.match(set, /HttpOnly|tf_csrf/);
        }
      } finally {
        await node.close();
      }
    },
  );

  void it(
    "outside development with no login configured, the API is served and the Console is off, said in one warning",
    options,
    async () => {
      const { lines, logger } = capture();
      const node = await startConsoleNode("sqlite", {}, { logger, withSender: false });
      try {
        const warnings = lines
          .map((l) => JSON.parse(l) as { level: number; msg: string })
          .filter((l) => l.level === 40 && l.msg.startsWith("console:"));
        assert.equal(warnings.length, 1, JSON.stringify(warnings));
        const msg = warnings[0]?.msg ?? "";
        assert.match(msg, /^console: off: the Console has no login while NODE_ENV is "production"/);
        for (const how of ["WF_CONSOLE_OIDC_ISSUER", "WF_CONSOLE_TRUSTED_HEADER", "CodeSender"]) {
          assert.ok(msg.includes(how), `the warning names ${how}`);
        }
        const session = await node.call({ method: "GET", url: "/console/api/session" });
        assert.equal(session.statusCode, 404, "no Console mounted");
        const api = await node.engine({ method: "GET", url: "/v1/tasks" });
        assert.equal(api.statusCode, 200, api.body);
      } finally {
        await node.close();
      }
    },
  );

  void it(
    "an engine that refuses the Console's key is a 503 for the browser, not a 401, and the key stays hidden",
    options,
    async () => {
      const wrongKey = `wrong-${"w".repeat(30)}`;
      const node = await startConsoleNode("sqlite", { consoleApiKey: wrongKey });
      try {
        const b = await logIn(node, "bob");
        const r = await node.call({
          method: "GET",
          url: "/console/api/engine/tasks",
          headers: b.read(),
        });
        assert.equal(r.statusCode, 503, r.body);
        assert.equal(r.json<{ code: string }>().code, "Unavailable");
        assert.ok(!r.body.includes(wrongKey));
        const session = await node.call({
          method: "GET",
          url: "/console/api/session",
          headers: b.read(),
        });
        assert.equal(session.statusCode, 200, "the browser's login is untouched");
      } finally {
        await node.close();
      }
    },
  );
});
