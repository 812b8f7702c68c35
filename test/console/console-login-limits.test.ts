/**
 * The login budgets behind the reverse proxy the docs recommend (SQLite):
 * the client is the address the trusted proxies name in X-Forwarded-For, not
 * the proxy, and no budget of a user can be spent by someone else in their
 * name — neither code requests nor wrong guesses lock a victim out, and
 * asking for a code in their name does not replace theirs.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  browser,
  consoleTestOptions,
  jarFrom,
  ORIGIN,
  startConsoleNode,
  type ConsoleNode,
} from "./support/console-node.ts";

const PROXY = "10.1.2.3";

void describe("console login budgets behind a trusted proxy (sqlite)", async () => {
  const options = await consoleTestOptions("sqlite");
  let node: ConsoleNode;
  before(async () => {
    node = await startConsoleNode("sqlite", { consoleTrustedProxies: "10.1.0.0/16" });
  });
  after(() => node?.close());

  /** A request through the proxy for the client `client` (what the proxy appends). */
  const ask = (userId: string, client: string, peer = PROXY, forwarded = client) =>
    node.call({
      method: "POST",
      url: "/console/api/auth/code",
      remoteAddress: peer,
      headers: { origin: ORIGIN, "x-forwarded-for": forwarded },
      payload: { userId },
    });
  const verify = (userId: string, code: string, client: string, cookie: Record<string, string>) =>
    node.call({
      method: "POST",
      url: "/console/api/auth/verify",
      remoteAddress: PROXY,
      headers: { origin: ORIGIN, "x-forwarded-for": client, ...cookie },
      payload: { userId, code },
    });

  void it(
    "20 code requests for made-up users spend that client's budget, not everyone's",
    options,
    async () => {
      for (let i = 0; i < 20; i++) {
        assert.equal((await ask(`made-up-${i}`, "203.0.113.5")).statusCode, 202);
      }
      assert.equal((await ask("bob", "203.0.113.5")).statusCode, 429, "that client is over");
      const other = await ask("bob", "203.0.113.6");
      assert.equal(other.statusCode, 202, `another client behind the same proxy: ${other.body}`);
    },
  );

  void it(
    "a client cannot choose its address: X-Forwarded-For counts only from the trusted proxies",
    options,
    async () => {
      // An untrusted peer's X-Forwarded-For is ignored: the peer is the client.
      for (let i = 0; i < 20; i++) {
        const r = await ask(`nobody-${i}`, `198.18.0.${i}`, "198.51.100.1");
        assert.equal(r.statusCode, 202, r.body);
      }
      assert.equal((await ask("bob", "198.18.1.1", "198.51.100.1")).statusCode, 429);
      // What the client wrote left of the proxy's own entry is ignored too.
      for (let i = 0; i < 20; i++) {
        const r = await ask(`no-one-${i}`, "", PROXY, `198.18.2.${i}, 203.0.113.7`);
        assert.equal(r.statusCode, 202, r.body);
      }
      assert.equal((await ask("bob", "", PROXY, "198.18.3.1, 203.0.113.7")).statusCode, 429);
      // A chain of trusted proxies is walked through to the client.
      assert.equal((await ask("bob", "", PROXY, "203.0.113.8, 10.1.9.9")).statusCode, 202);
    },
  );

  void it(
    "code requests in a victim's name neither lock the victim out nor replace their code",
    options,
    async () => {
      const victim = "198.51.100.20";
      const asked = await ask("alice", victim);
      assert.equal(asked.statusCode, 202, asked.body);
      const code = node.sender.last("alice");
      for (let i = 0; i < 5; i++) assert.equal((await ask("alice", "192.0.2.66")).statusCode, 202);
      assert.equal((await ask("alice", "192.0.2.66")).statusCode, 429, "the attacker is over");
      // The attacker's codes went to alice, but alice's own code still works, in her browser.
      assert.equal(node.sender.sent.filter((m) => m.userId === "alice").length, 6);
      const verified = await verify("alice", code, victim, browser(jarFrom(asked)).read());
      assert.equal(verified.statusCode, 200, verified.body);
      assert.equal((await ask("alice", victim)).statusCode, 202, "and she may ask again");
    },
  );

  void it("wrong guesses in a victim's name do not lock the victim out", options, async () => {
    const attacker = await ask("dave", "192.0.2.77");
    const jar = browser(jarFrom(attacker)).read();
    let refused = 0;
    for (let i = 0; i < 15; i++) {
      const r = await verify("dave", "000000", "192.0.2.77", jar);
      if (r.statusCode === 429) refused++;
      else assert.equal(r.statusCode, 401);
    }
    assert.ok(refused >= 5, "the attacker's own budget ran out");
    const asked = await ask("dave", "198.51.100.30");
    const verified = await verify(
      "dave",
      node.sender.last("dave"),
      "198.51.100.30",
      browser(jarFrom(asked)).read(),
    );
    assert.equal(verified.statusCode, 200, verified.body);
  });
});
