/**
 * The OpaqueTokens port's contract, unchanged on every coordination backend:
 * memory, SQLite, PostgreSQL, MariaDB and Redis. Each case gets a fresh
 * coordination (a fresh database or Redis prefix); concurrent rotations run
 * over two nodes where the backend has more than one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { TaskflowError } from "../../src/domain/errors.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import type { IssuedToken } from "../../src/engine/coordination/opaque-tokens-port.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  shareOneDatabasePerBackend,
  openTestCoordination,
  type CoordinationBackendName,
  type TestCoordination,
} from "./support/coordination-backends.ts";
import { ageTokens } from "./support/age-tokens.ts";
import { storedText } from "./support/stored-text.ts";

shareOneDatabasePerBackend();

const T = "tenant-a";
const REFRESH = "refresh";

const isValidation = (e: unknown) => e instanceof TaskflowError && e.code === "Validation";

/** A second node on the backend; none on memory (one process) and SQLite (see the codes suite). */
async function secondNode(
  tc: TestCoordination,
): Promise<{ node: Coordination; close(): Promise<void> }> {
  const backend = tc.coordination.backend;
  if (backend === "memory" || backend === "sqlite") {
    return { node: tc.coordination, close: () => Promise.resolve() };
  }
  const other = await tc.openAnother();
  return { node: other.coordination, close: () => other.close() };
}

function rotated(r: Awaited<ReturnType<Coordination["tokens"]["rotate"]>>): IssuedToken {
  assert.equal(r.outcome, "rotated");
  if (r.outcome !== "rotated") throw new Error("unreachable");
  return r.next;
}

function suite(name: CoordinationBackendName) {
  describe(`opaque tokens contract: ${name}`, async () => {
    const options = await coordinationTestOptions(name);
    const t = (title: string, fn: (tc: TestCoordination) => Promise<void>) =>
      void it(title, options, async () => {
        const tc = await openTestCoordination(name);
        try {
          await fn(tc);
        } finally {
          await tc.close();
        }
      });

    t("issue: a 256-bit base64url secret; verify returns its facts", async (tc) => {
      const { tokens } = tc.coordination;
      const before = Date.now();
      const issued = await tokens.issue(T, {
        purpose: REFRESH,
        subject: "alice",
        data: { scope: "inbox", n: 3, admin: false, note: null },
      });
      assert.match(issued.token, /^[A-Za-z0-9_-]{43,}$/);
      assert.ok(Buffer.from(issued.token, "base64url").length >= 32, "at least 32 bytes");
      assert.equal(issued.familyId.length > 0, true);
      assert.equal(issued.expiresAt, null);
      assert.ok(issued.createdAt.getTime() >= before && issued.createdAt.getTime() <= Date.now());
      const info = await tokens.verify(T, REFRESH, issued.token);
      assert.deepEqual(info, {
        id: issued.id,
        familyId: issued.familyId,
        purpose: REFRESH,
        subject: "alice",
        data: { scope: "inbox", n: 3, admin: false, note: null },
        createdAt: issued.createdAt,
        expiresAt: null,
      });
      const other = await tokens.issue(T, { purpose: REFRESH, subject: "alice" });
      assert.notEqual(other.token, issued.token);
      assert.notEqual(other.id, issued.id);
      assert.notEqual(other.familyId, issued.familyId);
    });

    t("an unknown secret verifies as null", async (tc) => {
      const { tokens } = tc.coordination;
      await tokens.issue(T, { purpose: REFRESH, subject: "bob" });
      assert.equal(await tokens.verify(T, REFRESH, "not-a-token"), null);
    });

    t("purposes and tenants are separate", async (tc) => {
      const { tokens } = tc.coordination;
      const a = await tokens.issue(T, { purpose: REFRESH, subject: "carol" });
      assert.equal(await tokens.verify(T, "session", a.token), null);
      assert.equal(await tokens.verify("tenant-b", REFRESH, a.token), null);
      assert.deepEqual(await tokens.list("tenant-b", REFRESH), []);
      assert.deepEqual(await tokens.list(T, "session"), []);
      assert.equal(await tokens.revoke("tenant-b", REFRESH, a.id), false);
      assert.equal(await tokens.revoke(T, "session", a.token), false);
      assert.equal((await tokens.rotate("tenant-b", REFRESH, a.token)).outcome, "invalid");
      assert.equal((await tokens.rotate(T, "session", a.token)).outcome, "invalid");
      assert.equal(await tokens.revokeFamily("tenant-b", a.familyId), 0);
      assert.equal((await tokens.verify(T, REFRESH, a.token))?.id, a.id, "still live");
    });

    t("an expired token fails verify and rotate", async (tc) => {
      const { tokens } = tc.coordination;
      // 1 s: long enough for the first verify on a loaded machine (50 ms was not).
      const issued = await tokens.issue(T, { purpose: REFRESH, subject: "dave", ttlMs: 1000 });
      const expires = issued.expiresAt?.getTime() ?? 0;
      assert.equal(expires, issued.createdAt.getTime() + 1000, "expiresAt = createdAt + ttl");
      assert.equal((await tokens.verify(T, REFRESH, issued.token))?.id, issued.id);
      await sleep(Math.max(0, expires - Date.now()) + 50);
      assert.equal(await tokens.verify(T, REFRESH, issued.token), null);
      assert.equal((await tokens.rotate(T, REFRESH, issued.token)).outcome, "invalid");
      const listed = await tokens.list(T, REFRESH);
      assert.deepEqual(
        listed.map((i) => [i.id, i.state]),
        [[issued.id, "expired"]],
      );
    });

    t("revoke by id and by secret; true only for a live token", async (tc) => {
      const { tokens } = tc.coordination;
      const a = await tokens.issue(T, { purpose: REFRESH, subject: "erin" });
      const b = await tokens.issue(T, { purpose: REFRESH, subject: "erin" });
      assert.equal(await tokens.revoke(T, REFRESH, a.id), true);
      assert.equal(await tokens.verify(T, REFRESH, a.token), null);
      assert.equal(await tokens.revoke(T, REFRESH, a.id), false);
      assert.equal(await tokens.revoke(T, REFRESH, b.token), true);
      assert.equal(await tokens.verify(T, REFRESH, b.token), null);
      assert.equal(await tokens.revoke(T, REFRESH, "no-such-token"), false);
      const states = (await tokens.list(T, REFRESH)).map((i) => i.state);
      assert.deepEqual(states, ["revoked", "revoked"], "revoked tokens are listed as such");
    });

    t("rotate: the next token of the family is live, the presented one retired", async (tc) => {
      const { tokens } = tc.coordination;
      const first = await tokens.issue(T, {
        purpose: REFRESH,
        subject: "frank",
        data: { device: "phone" },
      });
      const next = rotated(await tokens.rotate(T, REFRESH, first.token, 60_000));
      assert.equal(next.familyId, first.familyId);
      assert.equal(next.subject, "frank");
      assert.equal(next.purpose, REFRESH);
      assert.deepEqual(next.data, { device: "phone" });
      assert.notEqual(next.id, first.id);
      assert.notEqual(next.token, first.token);
      const expires = next.expiresAt?.getTime() ?? 0;
      assert.ok(Math.abs(expires - (next.createdAt.getTime() + 60_000)) < 5, "ttlMs applies");
      assert.equal(await tokens.verify(T, REFRESH, first.token), null);
      assert.equal((await tokens.verify(T, REFRESH, next.token))?.id, next.id);
    });

    t("reuse: a retired token presented again revokes the whole family", async (tc) => {
      const { tokens } = tc.coordination;
      const t1 = await tokens.issue(T, { purpose: REFRESH, subject: "grace" });
      const bystander = await tokens.issue(T, { purpose: REFRESH, subject: "grace" });
      const t2 = rotated(await tokens.rotate(T, REFRESH, t1.token));
      const t3 = rotated(await tokens.rotate(T, REFRESH, t2.token));
      assert.equal((await tokens.rotate(T, REFRESH, t1.token)).outcome, "reused");
      for (const tok of [t1, t2, t3]) {
        assert.equal(await tokens.verify(T, REFRESH, tok.token), null, tok.id);
      }
      // The thief's and the owner's later attempts both fail, and count as reuse too.
      assert.equal((await tokens.rotate(T, REFRESH, t3.token)).outcome, "reused");
      assert.equal((await tokens.verify(T, REFRESH, bystander.token))?.id, bystander.id);
    });

    t("two concurrent rotations of one token: one rotated, one reused", async (tc) => {
      const pair = await secondNode(tc);
      try {
        for (let round = 0; round < 5; round++) {
          const subject = `heidi-${round}`;
          const start = await tc.coordination.tokens.issue(T, { purpose: REFRESH, subject });
          const outcomes = await Promise.all([
            tc.coordination.tokens.rotate(T, REFRESH, start.token),
            pair.node.tokens.rotate(T, REFRESH, start.token),
          ]);
          const kinds = outcomes.map((o) => o.outcome).sort();
          assert.deepEqual(kinds, ["reused", "rotated"], `round ${round}`);
          const winner = outcomes.find((o) => o.outcome === "rotated");
          assert.ok(winner?.outcome === "rotated");
          // The reuse revoked the family, the winner's new token included.
          assert.equal(await tc.coordination.tokens.verify(T, REFRESH, winner.next.token), null);
          assert.equal(
            (await tc.coordination.tokens.rotate(T, REFRESH, winner.next.token)).outcome,
            "reused",
          );
        }
      } finally {
        await pair.close();
      }
    });

    t("revokeFamily revokes every token of the family, counted once", async (tc) => {
      const { tokens } = tc.coordination;
      const t1 = await tokens.issue(T, { purpose: REFRESH, subject: "ivan" });
      const t2 = rotated(await tokens.rotate(T, REFRESH, t1.token));
      const t3 = rotated(await tokens.rotate(T, REFRESH, t2.token));
      assert.equal(await tokens.revokeFamily(T, t1.familyId), 3);
      assert.equal(await tokens.revokeFamily(T, t1.familyId), 0);
      assert.equal(await tokens.verify(T, REFRESH, t3.token), null);
      assert.equal(await tokens.revokeFamily(T, "no-such-family"), 0);
    });

    t(
      "list: every kept token of the purpose with its state, newest first, never a secret",
      async (tc) => {
        const { tokens } = tc.coordination;
        const a = await tokens.issue(T, { purpose: REFRESH, subject: "judy" });
        await sleep(5);
        const b = await tokens.issue(T, { purpose: REFRESH, subject: "judy", data: { k: "v" } });
        await sleep(5);
        const revoked = await tokens.issue(T, { purpose: REFRESH, subject: "judy" });
        await tokens.revoke(T, REFRESH, revoked.id);
        await sleep(5);
        const c = rotated(await tokens.rotate(T, REFRESH, a.token));
        await tokens.issue(T, { purpose: "session", subject: "judy" });
        const listed = await tokens.list(T, REFRESH);
        assert.deepEqual(
          listed.map((i) => [i.id, i.state]),
          [
            [c.id, "live"],
            [revoked.id, "revoked"],
            [b.id, "live"],
            [a.id, "retired"],
          ],
        );
        const text = JSON.stringify(listed);
        for (const secret of [a.token, b.token, c.token, revoked.token]) {
          assert.ok(!text.includes(secret), "a secret is listed");
        }
        for (const info of listed) assert.ok(!("token" in info), "no token field");
        assert.deepEqual(listed[2]?.data, { k: "v" });
        assert.equal(listed[0]?.familyId, a.familyId);
      },
    );

    t("cleanup keeps live tokens and tokens revoked within the day", async (tc) => {
      const { tokens } = tc.coordination;
      const live = await tokens.issue(T, { purpose: REFRESH, subject: "mallory" });
      const gone = await tokens.issue(T, { purpose: REFRESH, subject: "mallory" });
      await tokens.revoke(T, REFRESH, gone.id);
      assert.equal(await tokens.cleanup(1000), 0);
      assert.equal((await tokens.verify(T, REFRESH, live.token))?.id, live.id);
      // Still known as revoked: presenting it is reuse, not an unknown token.
      assert.equal((await tokens.rotate(T, REFRESH, gone.token)).outcome, "reused");
    });

    it(
      "cleanup removes tokens dead for over a day, at most maxEntries a call, and nothing else",
      {
        ...options,
        ...(name === "memory" && { skip: "a memory token cannot be aged from outside" }),
      },
      async () => {
        const tc = await openTestCoordination(name);
        try {
          const { tokens } = tc.coordination;
          const issue = () => tokens.issue(T, { purpose: REFRESH, subject: "niaj" });
          const [live, dead1, dead2, recent] = [
            await issue(),
            await issue(),
            await issue(),
            await issue(),
          ];
          for (const t of [dead1, dead2, recent]) await tokens.revoke(T, REFRESH, t.id);
          await ageTokens(tc, T, [dead1.id, dead2.id]);
          assert.equal(await tokens.cleanup(1), 1);
          assert.equal(await tokens.cleanup(10), 1);
          assert.equal(await tokens.cleanup(10), 0);
          const listed = (await tokens.list(T, REFRESH)).map((i) => i.id).sort();
          assert.deepEqual(listed, [live.id, recent.id].sort());
          assert.equal((await tokens.verify(T, REFRESH, live.token))?.id, live.id);
          // Forgotten: no longer known, so presenting it is invalid rather than reuse.
          assert.equal((await tokens.rotate(T, REFRESH, dead1.token)).outcome, "invalid");
          const stored = await storedText(tc, ["coordination_tokens"]);
          for (const gone of [dead1.id, dead2.id]) {
            assert.ok(stored !== null && !stored.includes(gone), `${gone} left something behind`);
          }
        } finally {
          await tc.close();
        }
      },
    );

    it(
      "the stored form never contains a secret",
      {
        ...options,
        ...(name === "memory" && { skip: "memory keeps nothing that can be read from outside" }),
      },
      async () => {
        const tc = await openTestCoordination(name);
        try {
          const { tokens } = tc.coordination;
          const a = await tokens.issue(T, { purpose: REFRESH, subject: "oscar" });
          const b = rotated(await tokens.rotate(T, REFRESH, a.token));
          const stored = await storedText(tc, ["coordination_tokens"]);
          assert.ok(stored !== null && stored.includes("oscar"), "the rows or keys were read");
          for (const secret of [a.token, b.token]) {
            assert.ok(!stored.includes(secret), "a plain token is stored");
            const hex = Buffer.from(secret, "base64url").toString("hex");
            assert.ok(!stored.includes(hex), "a token's bytes are stored as hex");
          }
        } finally {
          await tc.close();
        }
      },
    );

    t("bad input is Validation", async (tc) => {
      const { tokens } = tc.coordination;
      const long = "x".repeat(513);
      const ok = { purpose: REFRESH, subject: "peggy" };
      const live = await tokens.issue(T, ok);
      const bad: [string, () => Promise<unknown>][] = [
        ["empty subject", () => tokens.issue(T, { ...ok, subject: "" })],
        ["empty purpose", () => tokens.issue(T, { ...ok, purpose: "" })],
        ["subject of 513", () => tokens.issue(T, { ...ok, subject: long })],
        ["purpose of 513", () => tokens.issue(T, { ...ok, purpose: long })],
        ["ttl 0", () => tokens.issue(T, { ...ok, ttlMs: 0 })],
        ["ttl -1", () => tokens.issue(T, { ...ok, ttlMs: -1 })],
        ["bad tenant", () => tokens.issue("a tenant", ok)],
        ["data over 4 KiB", () => tokens.issue(T, { ...ok, data: { big: "x".repeat(4096) } })],
        ["verify: empty token", () => tokens.verify(T, REFRESH, "")],
        ["verify: purpose of 513", () => tokens.verify(T, long, "abc")],
        ["revoke: empty id", () => tokens.revoke(T, REFRESH, "")],
        ["revokeFamily: empty family", () => tokens.revokeFamily(T, "")],
        ["rotate: ttl 0", () => tokens.rotate(T, REFRESH, live.token, 0)],
        ["rotate: ttl -5", () => tokens.rotate(T, REFRESH, live.token, -5)],
        ["list: empty purpose", () => tokens.list(T, "")],
        ["cleanup: 0", () => tokens.cleanup(0)],
      ];
      for (const [what, call] of bad) await assert.rejects(call(), isValidation, what);
      assert.equal(
        (await tokens.verify(T, REFRESH, live.token))?.id,
        live.id,
        "a refused rotation keeps the token",
      );
      const edge = await tokens.issue(T, { purpose: "p".repeat(512), subject: "s".repeat(512) });
      assert.equal((await tokens.verify(T, "p".repeat(512), edge.token))?.id, edge.id);
    });
  });
}

for (const name of coordinationBackends) suite(name);
