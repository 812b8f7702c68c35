/**
 * The OneTimeCodes port's contract, unchanged on every coordination backend:
 * memory, SQLite, PostgreSQL, MariaDB and Redis. Each case gets a fresh
 * coordination (a fresh database or Redis prefix); races run over two nodes
 * (two pools, or two Redis connections) where the backend has more than one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { TaskflowError } from "../../src/domain/errors.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import type { VerifyOutcome } from "../../src/engine/coordination/one-time-codes-port.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  shareOneDatabasePerBackend,
  openTestCoordination,
  type CoordinationBackendName,
  type TestCoordination,
} from "./support/coordination-backends.ts";
import { storedText } from "./support/stored-text.ts";

shareOneDatabasePerBackend();

const T = "tenant-a";
const LOGIN = "login";

/** A guess that is surely not `code`: the same length, last digit moved by one. */
function wrongFor(code: string): string {
  const last = Number(code.at(-1));
  return code.slice(0, -1) + String((last + 1) % 10);
}

const isValidation = (e: unknown) => e instanceof TaskflowError && e.code === "Validation";
const isRateLimited = (e: unknown) => e instanceof TaskflowError && e.code === "RateLimited";

/**
 * The coordination itself and, where the backend has one, a second node on
 * it. Not on SQLite: a second connection to the file in this process waits
 * for the write lock synchronously (busy_timeout, 5 s), which blocks the
 * event loop the first connection needs to commit and release it, so every
 * race ended in SQLITE_BUSY after 5 s. One connection with many concurrent
 * callers is what a SQLite node is.
 */
async function nodes(
  tc: TestCoordination,
): Promise<{ all: Coordination[]; close(): Promise<void> }> {
  const backend = tc.coordination.backend;
  if (backend === "memory" || backend === "sqlite") {
    return { all: [tc.coordination], close: () => Promise.resolve() };
  }
  const other = await tc.openAnother();
  return { all: [tc.coordination, other.coordination], close: () => other.close() };
}

const count = (outcomes: readonly VerifyOutcome[], which: VerifyOutcome) =>
  outcomes.filter((o) => o === which).length;

function suite(name: CoordinationBackendName) {
  describe(`one-time codes contract: ${name}`, async () => {
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

    t("a right guess is ok once; the same code again is none", async (tc) => {
      const { codes } = tc.coordination;
      const before = Date.now();
      const issued = await codes.issue(T, "alice", LOGIN, { ttlMs: 60_000 });
      assert.match(issued.code, /^\d{6}$/);
      const expires = issued.expiresAt.getTime();
      assert.ok(
        expires >= before + 60_000 && expires <= Date.now() + 60_000,
        "expiresAt ≈ now + ttl",
      );
      assert.equal(await codes.verify(T, "alice", LOGIN, issued.code), "ok");
      assert.equal(await codes.verify(T, "alice", LOGIN, issued.code), "none");
    });

    t("digits sets the code's length (6 to 12)", async (tc) => {
      const { codes } = tc.coordination;
      const long = await codes.issue(T, "bob", LOGIN, { digits: 12 });
      assert.match(long.code, /^\d{12}$/);
      assert.equal(await codes.verify(T, "bob", LOGIN, long.code), "ok");
    });

    t("no code issued is none", async (tc) => {
      assert.equal(await tc.coordination.codes.verify(T, "nobody", LOGIN, "123456"), "none");
    });

    t("wrong guesses count up to the cap; then even the right code is exhausted", async (tc) => {
      const { codes } = tc.coordination;
      const { code } = await codes.issue(T, "carol", LOGIN, { maxAttempts: 3 });
      assert.equal(await codes.verify(T, "carol", LOGIN, wrongFor(code)), "wrong");
      assert.equal(await codes.verify(T, "carol", LOGIN, wrongFor(code)), "wrong");
      assert.equal(await codes.verify(T, "carol", LOGIN, wrongFor(code)), "wrong");
      assert.equal(await codes.verify(T, "carol", LOGIN, code), "exhausted");
      assert.equal(await codes.verify(T, "carol", LOGIN, wrongFor(code)), "exhausted");
    });

    t("a right guess after wrong ones under the cap is still ok", async (tc) => {
      const { codes } = tc.coordination;
      const { code } = await codes.issue(T, "dave", LOGIN, { maxAttempts: 3 });
      assert.equal(await codes.verify(T, "dave", LOGIN, wrongFor(code)), "wrong");
      assert.equal(await codes.verify(T, "dave", LOGIN, wrongFor(code)), "wrong");
      assert.equal(await codes.verify(T, "dave", LOGIN, code), "ok");
    });

    t("50 concurrent wrong guesses never count past the cap", async (tc) => {
      const pair = await nodes(tc);
      const all = pair.all;
      try {
        const { code } = await tc.coordination.codes.issue(T, "erin", LOGIN, { maxAttempts: 5 });
        const guesses = Array.from({ length: 50 }, (_, i) => {
          const node = all[i % all.length]!;
          return node.codes.verify(T, "erin", LOGIN, wrongFor(code));
        });
        const outcomes = await Promise.all(guesses);
        assert.equal(count(outcomes, "wrong"), 5, `outcomes: ${outcomes.join(",")}`);
        assert.equal(count(outcomes, "exhausted"), 45, `outcomes: ${outcomes.join(",")}`);
        assert.equal(await tc.coordination.codes.verify(T, "erin", LOGIN, code), "exhausted");
      } finally {
        await pair.close();
      }
    });

    t("two concurrent right guesses: exactly one ok", async (tc) => {
      const pair = await nodes(tc);
      const all = pair.all;
      try {
        // Several rounds, each a fresh subject (issuing is limited per subject).
        for (let round = 0; round < 5; round++) {
          const subject = `frank-${round}`;
          const { code } = await tc.coordination.codes.issue(T, subject, LOGIN);
          const outcomes = await Promise.all([
            all[0]!.codes.verify(T, subject, LOGIN, code),
            all[all.length - 1]!.codes.verify(T, subject, LOGIN, code),
          ]);
          assert.equal(count(outcomes, "ok"), 1, `round ${round}: ${outcomes.join(",")}`);
          assert.equal(count(outcomes, "none"), 1, `round ${round}: ${outcomes.join(",")}`);
        }
      } finally {
        await pair.close();
      }
    });

    t("a new issue replaces the old code", async (tc) => {
      const { codes } = tc.coordination;
      // 12 digits: the two codes are equal with odds 10^-12.
      const first = await codes.issue(T, "grace", LOGIN, { digits: 12 });
      const second = await codes.issue(T, "grace", LOGIN, { digits: 12 });
      assert.notEqual(first.code, second.code);
      assert.equal(await codes.verify(T, "grace", LOGIN, first.code), "wrong");
      assert.equal(await codes.verify(T, "grace", LOGIN, second.code), "ok");
    });

    t("a code past its TTL is expired, even when right", async (tc) => {
      const { codes } = tc.coordination;
      const { code } = await codes.issue(T, "heidi", LOGIN, { ttlMs: 50 });
      await sleep(120);
      assert.equal(await codes.verify(T, "heidi", LOGIN, code), "expired");
      assert.notEqual(await codes.verify(T, "heidi", LOGIN, code), "ok");
    });

    t("issuing is rate-limited per subject and purpose: 5 per 15 minutes", async (tc) => {
      const { codes } = tc.coordination;
      for (let i = 0; i < 5; i++) await codes.issue(T, "ivan", LOGIN);
      await assert.rejects(codes.issue(T, "ivan", LOGIN), isRateLimited);
      // The refused issue did not replace the last code… and another budget is not this one's.
      await codes.issue(T, "ivan", "confirm-email");
      await codes.issue(T, "judy", LOGIN);
      await codes.issue("tenant-b", "ivan", LOGIN);
    });

    t("tenants and purposes are separate", async (tc) => {
      const { codes } = tc.coordination;
      const a = await codes.issue(T, "mallory", LOGIN, { digits: 12 });
      assert.equal(await codes.verify("tenant-b", "mallory", LOGIN, a.code), "none");
      assert.equal(await codes.verify(T, "mallory", "reset", a.code), "none");
      const b = await codes.issue("tenant-b", "mallory", LOGIN, { digits: 12 });
      assert.equal(await codes.verify(T, "mallory", LOGIN, a.code), "ok");
      assert.equal(await codes.verify("tenant-b", "mallory", LOGIN, b.code), "ok");
    });

    it(
      "the stored form never contains the code",
      {
        ...options,
        ...(name === "memory" && { skip: "memory keeps nothing that can be read from outside" }),
      },
      async () => {
        const tc = await openTestCoordination(name);
        try {
          const { code } = await tc.coordination.codes.issue(T, "oscar", LOGIN, { digits: 12 });
          const stored = await storedText(tc, ["coordination_codes"]);
          assert.ok(stored !== null && stored.includes("oscar"), "the row or key was read");
          assert.ok(!stored.includes(code), "the plain code is stored");
        } finally {
          await tc.close();
        }
      },
    );

    it(
      "cleanup removes codes that expired unused, at most maxEntries a call, and keeps live ones",
      {
        ...options,
        ...(name === "redis" && {
          skip: "Redis keys expire by themselves: cleanup has nothing to do",
        }),
      },
      async () => {
        const tc = await openTestCoordination(name);
        try {
          const { codes } = tc.coordination;
          await codes.issue(T, "ivan", LOGIN, { ttlMs: 30 });
          await codes.issue(T, "judy", LOGIN, { ttlMs: 30 });
          const live = await codes.issue(T, "kate", LOGIN, { ttlMs: 60_000 });
          await new Promise((r) => setTimeout(r, 60));
          assert.equal(await codes.cleanup(1), 1);
          assert.equal(await codes.cleanup(10), 1);
          assert.equal(await codes.cleanup(10), 0);
          // Removed, not merely expired: nothing is left to answer "expired".
          assert.equal(await codes.verify(T, "ivan", LOGIN, "123456"), "none");
          assert.equal(await codes.verify(T, "kate", LOGIN, live.code), "ok");
          await assert.rejects(codes.cleanup(0), isValidation);
        } finally {
          await tc.close();
        }
      },
    );

    t("bad input is Validation, on issue and on verify", async (tc) => {
      const { codes } = tc.coordination;
      const long = "x".repeat(513);
      const bad: [string, () => Promise<unknown>][] = [
        ["empty subject", () => codes.issue(T, "", LOGIN)],
        ["empty purpose", () => codes.issue(T, "peggy", "")],
        ["subject of 513", () => codes.issue(T, long, LOGIN)],
        ["purpose of 513", () => codes.issue(T, "peggy", long)],
        ["ttl 0", () => codes.issue(T, "peggy", LOGIN, { ttlMs: 0 })],
        ["ttl -1", () => codes.issue(T, "peggy", LOGIN, { ttlMs: -1 })],
        ["ttl 1.5", () => codes.issue(T, "peggy", LOGIN, { ttlMs: 1.5 })],
        ["digits 5", () => codes.issue(T, "peggy", LOGIN, { digits: 5 })],
        ["digits 13", () => codes.issue(T, "peggy", LOGIN, { digits: 13 })],
        ["maxAttempts 0", () => codes.issue(T, "peggy", LOGIN, { maxAttempts: 0 })],
        ["bad tenant", () => codes.issue("no spaces allowed", "peggy", LOGIN)],
        ["verify: empty subject", () => codes.verify(T, "", LOGIN, "123456")],
        ["verify: purpose of 513", () => codes.verify(T, "peggy", long, "123456")],
      ];
      for (const [what, call] of bad) await assert.rejects(call(), isValidation, what);
      // 512 is still fine.
      const edge = await codes.issue(T, "x".repeat(512), "y".repeat(512));
      assert.equal(await codes.verify(T, "x".repeat(512), "y".repeat(512), edge.code), "ok");
    });
  });
}

for (const name of coordinationBackends) suite(name);
