/**
 * The Console's login on real coordination (SQLite, PostgreSQL, Redis): a
 * code, its cookies and their flags, a bad code refused and counted, the
 * per-user-per-address budget, refresh with rotation and reuse detection, logout. Every
 * answer is scanned for the API key (support/console-node.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  browser,
  consoleBackends,
  consoleTestOptions,
  jarFrom,
  logIn,
  ORIGIN,
  setCookies,
  startConsoleNode,
  type ConsoleBackend,
  type ConsoleNode,
} from "./support/console-node.ts";

const SESSION = { method: "GET", url: "/console/api/session" } as const;

function suite(backend: ConsoleBackend) {
  describe(`console login on ${backend}`, async () => {
    const options = await consoleTestOptions(backend);
    /**
     * Where a case runs: "all" backends; "not-postgres" SQLite and Redis; "sqlite" alone.
     * A PostgreSQL node takes 4-5 s to start here, so it runs the cases on the
     * tokens' rotation, where its SQL differs most (the file stays under a minute).
     */
    const t = (title: string, fn: (node: ConsoleNode) => Promise<void>, on = "all") => {
      if (on === "not-postgres" && backend === "postgres") return;
      if (on === "sqlite" && backend !== "sqlite") return;
      void it(title, options, async () => {
        const node = await startConsoleNode(backend);
        try {
          await fn(node);
          assert.ok(node.answers.length > 0, "the test called the Console");
        } finally {
          await node.close();
        }
      });
    };

    t(
      "a code logs in: three cookies with HttpOnly (not tf_csrf), SameSite=Lax, Path=/console, Secure",
      async (node) => {
        const asked = await node.call({
          method: "POST",
          url: "/console/api/auth/code",
          headers: { origin: ORIGIN },
          payload: { userId: "bob" },
        });
        assert.equal(asked.statusCode, 202, asked.body);
        assert.ok(!asked.body.includes(node.sender.last("bob")), "the code is never answered");
        const attempt = setCookies(asked).get("tf_code");
        assert.match(attempt ?? "", /; Path=\/console\/api\/auth; Max-Age=300; HttpOnly; Secure/);
        const asker = { origin: ORIGIN, ...browser(jarFrom(asked)).read() };
        // Another browser (no tf_code) cannot enter the code.
        const elsewhere = await node.call({
          method: "POST",
          url: "/console/api/auth/verify",
          headers: { origin: ORIGIN },
          payload: { userId: "bob", code: node.sender.last("bob") },
        });
        assert.equal(elsewhere.statusCode, 401, elsewhere.body);
        const verified = await node.call({
          method: "POST",
          url: "/console/api/auth/verify",
          headers: asker,
          payload: { userId: "bob", code: node.sender.last("bob") },
        });
        assert.equal(verified.statusCode, 200, verified.body);
        const cookies = setCookies(verified);
        for (const name of ["tf_session", "tf_refresh", "tf_csrf"]) {
          const line = cookies.get(name);
          assert.ok(line, `${name} is set`);
          assert.match(line, /; Path=\/console(;|$)/);
          assert.match(line, /; SameSite=Lax(;|$)/);
          assert.match(line, /; Secure(;|$)/);
          assert.equal(/; HttpOnly(;|$)/.test(line), name !== "tf_csrf", `${name} HttpOnly`);
        }
        assert.match(cookies.get("tf_session") ?? "", /Max-Age=900;/);
        assert.match(cookies.get("tf_refresh") ?? "", /Max-Age=28800;/);
        const body = verified.json<{ userId: string; roles: string[]; csrfToken: string }>();
        const jar = jarFrom(verified);
        assert.deepEqual([body.userId, body.roles, body.csrfToken], ["bob", ["user"], jar.tf_csrf]);
        const session = await node.call({ ...SESSION, headers: browser(jar).read() });
        assert.equal(session.statusCode, 200, session.body);
        assert.deepEqual(session.json(), {
          userId: "bob",
          roles: ["user"],
          groups: ["reviewers"],
          directory: "static",
          tenant: "default",
          csrfToken: jar.tf_csrf,
        });
        // The code was consumed: it does not log in twice.
        const again = await node.call({
          method: "POST",
          url: "/console/api/auth/verify",
          headers: asker,
          payload: { userId: "bob", code: node.sender.last("bob") },
        });
        assert.equal(again.statusCode, 401);
      },
      "not-postgres",
    );

    t(
      "a bad code is refused and counted: after 5 wrong guesses the right code no longer works",
      async (node) => {
        const asked = await node.call({
          method: "POST",
          url: "/console/api/auth/code",
          headers: { origin: ORIGIN },
          payload: { userId: "bob" },
        });
        const asker = { origin: ORIGIN, ...browser(jarFrom(asked)).read() };
        const verify = (code: string) =>
          node.call({
            method: "POST",
            url: "/console/api/auth/verify",
            headers: asker,
            payload: { userId: "bob", code },
          });
        const right = node.sender.last("bob");
        const wrong = right === "000000" ? "111111" : "000000";
        for (let i = 0; i < 5; i++) {
          const r = await verify(wrong);
          assert.equal(r.statusCode, 401);
          assert.equal(r.headers["content-type"], "application/problem+json; charset=utf-8");
          assert.equal(r.json<{ code: string }>().code, "Unauthorized");
          assert.equal(setCookies(r).size, 0, "no cookie for a wrong code");
        }
        const late = await verify(right);
        assert.equal(late.statusCode, 401, "the code died after its 5 guesses");
        // The user's guess budget from this address (10 per 15 min) counted every one of them.
        for (let i = 0; i < 4; i++) assert.equal((await verify(wrong)).statusCode, 401);
        const over = await verify(wrong);
        assert.equal(over.statusCode, 429, over.body);
        assert.ok(Number(over.headers["retry-after"]) >= 1);
      },
      "not-postgres",
    );

    t(
      "an unknown user is answered like a known one and sent nothing; codes are budgeted per user per address",
      async (node) => {
        const ask = (userId: string, remoteAddress = "127.0.0.1") =>
          node.call({
            method: "POST",
            url: "/console/api/auth/code",
            headers: { origin: ORIGIN },
            payload: { userId },
            remoteAddress,
          });
        assert.equal((await ask("mallory")).statusCode, 202);
        assert.equal(node.sender.sent.filter((m) => m.userId === "mallory").length, 0);
        const unknown = await ask("mallory");
        assert.ok(setCookies(unknown).has("tf_code"), "an attempt cookie, as for a known user");
        // 5 codes per user per address per 15 min; another address is not locked out.
        for (let i = 1; i <= 5; i++) assert.equal((await ask("carol", "10.0.0.1")).statusCode, 202);
        const over = await ask("carol", "10.0.0.1");
        assert.equal(over.statusCode, 429, over.body);
        assert.equal(over.json<{ code: string }>().code, "RateLimited");
        assert.equal((await ask("carol", "10.0.0.9")).statusCode, 202, "carol's own address may");
      },
      "not-postgres",
    );

    t(
      "refresh rotates; the rotated token presented again revokes the login: its newest session stops working",
      async (node) => {
        const first = await logIn(node, "bob");
        const refreshed = await node.call({
          method: "POST",
          url: "/console/api/auth/refresh",
          headers: first.write(),
        });
        assert.equal(refreshed.statusCode, 200, refreshed.body);
        const second = browser(jarFrom(refreshed, first.jar));
        assert.notEqual(second.jar.tf_refresh, first.jar.tf_refresh);
        assert.notEqual(second.jar.tf_session, first.jar.tf_session);
        assert.equal((await node.call({ ...SESSION, headers: second.read() })).statusCode, 200);
        // The old session was retired with the refresh.
        assert.equal((await node.call({ ...SESSION, headers: first.read() })).statusCode, 401);

        const replay = await node.call({
          method: "POST",
          url: "/console/api/auth/refresh",
          headers: first.write(),
        });
        assert.equal(replay.statusCode, 401, replay.body);
        const cleared = setCookies(replay);
        for (const name of ["tf_session", "tf_refresh", "tf_csrf"]) {
          assert.match(cleared.get(name) ?? "", /Max-Age=0/, `${name} cleared`);
        }
        const after = await node.call({ ...SESSION, headers: second.read() });
        assert.equal(
          after.statusCode,
          401,
          "the session of the latest refresh ended with its family",
        );
        const refreshAgain = await node.call({
          method: "POST",
          url: "/console/api/auth/refresh",
          headers: second.write(),
        });
        assert.equal(refreshAgain.statusCode, 401, "and so did its refresh token");
      },
    );

    t(
      "logout ends the login at once; without its CSRF token it is refused and changes nothing",
      async (node) => {
        const b = await logIn(node, "bob");
        const forged = await node.call({
          method: "POST",
          url: "/console/api/auth/logout",
          headers: { ...b.read(), origin: ORIGIN },
        });
        assert.equal(forged.statusCode, 403);
        assert.equal((await node.call({ ...SESSION, headers: b.read() })).statusCode, 200);
        const out = await node.call({
          method: "POST",
          url: "/console/api/auth/logout",
          headers: b.write(),
        });
        assert.equal(out.statusCode, 204, out.body);
        assert.equal((await node.call({ ...SESSION, headers: b.read() })).statusCode, 401);
        const refresh = await node.call({
          method: "POST",
          url: "/console/api/auth/refresh",
          headers: b.write(),
        });
        assert.equal(refresh.statusCode, 401);
      },
      "not-postgres",
    );

    t(
      "two refreshes of one token at once: one rotates, the other is reuse, and the login ends",
      async (node) => {
        const b = await logIn(node, "bob");
        const refresh = () =>
          node.call({ method: "POST", url: "/console/api/auth/refresh", headers: b.write() });
        const answers = await Promise.all([refresh(), refresh()]);
        const codes = answers.map((r) => r.statusCode).sort();
        assert.deepEqual(codes, [200, 401], "exactly one rotation wins");
        const winner = answers.find((r) => r.statusCode === 200);
        assert.ok(winner);
        // The loser presented a token the winner had just retired: the family is revoked,
        // so even the winner's new session does not work. The page refreshes one at a time.
        const session = await node.call({
          method: "GET",
          url: "/console/api/session",
          headers: browser(jarFrom(winner, b.jar)).read(),
        });
        assert.equal(session.statusCode, 401, session.body);
      },
    );

    t(
      "codes are budgeted per client address too: 20 per 15 minutes, whatever the user",
      async (node) => {
        const ask = (userId: string, remoteAddress: string) =>
          node.call({
            method: "POST",
            url: "/console/api/auth/code",
            headers: { origin: ORIGIN },
            payload: { userId },
            remoteAddress,
          });
        for (let i = 0; i < 20; i++) {
          assert.equal((await ask(`someone-${i}`, "10.7.7.7")).statusCode, 202);
        }
        assert.equal((await ask("bob", "10.7.7.7")).statusCode, 429);
        assert.equal((await ask("bob", "10.7.7.8")).statusCode, 202, "another address still may");
        assert.equal(node.sender.sent.length, 1, "only the known user was sent a code");
      },
      "sqlite",
    );
  });
}

for (const backend of consoleBackends) suite(backend);
