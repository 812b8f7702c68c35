/**
 * withLock against the in-memory locks: runs only while holding, extends the
 * lease while fn runs, aborts fn's signal when the lock is lost, always
 * releases.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, it } from "node:test";
import { memoryLocks } from "../../../src/adapters/coordination/memory/memory-locks.ts";
import { TaskflowError } from "../../../src/domain/errors.ts";
import { UnavailableError } from "../../../src/domain/unavailable.ts";
import type { LockHandle, Locks } from "../../../src/engine/coordination/locks-port.ts";
import { withLock } from "../../../src/engine/coordination/with-lock.ts";

const T = "tenant-a";

/** The memory locks with every handle's extend() counted, or replaced. */
function spied(
  locks: Locks,
  extend?: (h: LockHandle, ms?: number) => Promise<boolean>,
): Locks & { extends: number } {
  const spy = {
    extends: 0,
    async acquire(...args: Parameters<Locks["acquire"]>) {
      const h = await locks.acquire(...args);
      if (h === null) return null;
      const handle: LockHandle = {
        tenant: h.tenant,
        name: h.name,
        token: h.token,
        signal: h.signal,
        extend: (ms) => {
          spy.extends++;
          return extend ? extend(h, ms) : h.extend(ms);
        },
        release: () => h.release(),
      };
      return handle;
    },
    isCurrent: (...args: Parameters<Locks["isCurrent"]>) => locks.isCurrent(...args),
    close: () => locks.close(),
  };
  return spy;
}

void describe("withLock", () => {
  let locks: Locks;
  beforeEach(() => {
    locks = memoryLocks({ keyPrefix: "test:" });
  });
  afterEach(() => locks.close());

  void it("runs fn holding the lock and releases it after", async () => {
    const r = await withLock(locks, T, "job", async (signal, handle) => {
      assert.equal(signal.aborted, false);
      assert.equal(await locks.acquire(T, "job"), null, "held while fn runs");
      assert.equal(await locks.isCurrent(T, "job", handle.token), true);
      return 42;
    });
    assert.deepEqual(r, { ran: true, value: 42 });
    const again = await locks.acquire(T, "job");
    assert.ok(again !== null, "released after fn");
    await again.release();
  });

  void it("does not run fn when the lock stays held for waitMs", async () => {
    const held = await locks.acquire(T, "job");
    let called = false;
    const started = Date.now();
    const r = await withLock(
      locks,
      T,
      "job",
      () => {
        called = true;
        return Promise.resolve(1);
      },
      { waitMs: 150 },
    );
    assert.deepEqual(r, { ran: false });
    assert.equal(called, false);
    assert.ok(Date.now() - started >= 140, "waited for waitMs");
    await held!.release();
  });

  void it("runs fn once a holder releases within waitMs", async () => {
    const held = await locks.acquire(T, "job");
    setTimeout(() => void held!.release(), 50);
    const r = await withLock(locks, T, "job", () => Promise.resolve("ok"), { waitMs: 1000 });
    assert.deepEqual(r, { ran: true, value: "ok" });
  });

  void it("extends the lease every lease/3 while fn runs, and stops after", async () => {
    const spy = spied(locks);
    const r = await withLock(
      spy,
      T,
      "job",
      async (signal) => {
        await sleep(700); // more than twice the lease
        assert.equal(signal.aborted, false, "extends kept the lock");
        assert.equal(await locks.acquire(T, "job"), null);
        return "done";
      },
      { leaseMs: 300 },
    );
    assert.deepEqual(r, { ran: true, value: "done" });
    assert.ok(spy.extends >= 5 && spy.extends <= 8, `${spy.extends} extends in 700 ms`);
    const after = spy.extends;
    await sleep(250);
    assert.equal(spy.extends, after, "no extend after withLock returned");
  });

  void it("aborts fn's signal when the lock is lost (extends fail until the lease ends)", async () => {
    const spy = spied(locks, () => Promise.reject(new UnavailableError("backend down")));
    let abortedAfter = -1;
    const started = Date.now();
    const r = await withLock(
      spy,
      T,
      "job",
      async (signal) => {
        await Promise.race([
          new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve())),
          sleep(2000),
        ]);
        abortedAfter = signal.aborted ? Date.now() - started : -1;
        return "stopped";
      },
      { leaseMs: 200 },
    );
    assert.deepEqual(r, { ran: true, value: "stopped" });
    assert.ok(spy.extends >= 1, "it tried to extend");
    assert.ok(abortedAfter >= 180 && abortedAfter < 1000, `aborted after ${abortedAfter} ms`);
    const next = await locks.acquire(T, "job");
    assert.ok(next !== null, "the lost lock is free");
    await next.release();
  });

  void it("aborts fn's signal when the locks close under it", async () => {
    const r = await withLock(locks, T, "job", async (signal) => {
      await locks.close();
      return signal.aborted;
    });
    assert.deepEqual(r, { ran: true, value: true });
  });

  void it("releases the lock when fn throws, and rethrows", async () => {
    const boom = new Error("boom");
    await assert.rejects(
      withLock(locks, T, "job", () => Promise.reject(boom)),
      (e) => e === boom,
    );
    const again = await locks.acquire(T, "job");
    assert.ok(again !== null, "released after the throw");
    await again.release();
  });

  void it("a failing release does not hide fn's value", async () => {
    const failing: Locks = {
      ...locks,
      acquire: async (...args) => {
        const h = await locks.acquire(...args);
        return h && { ...h, release: () => Promise.reject(new UnavailableError("down")) };
      },
      isCurrent: (...args) => locks.isCurrent(...args),
      close: () => locks.close(),
    };
    assert.deepEqual(await withLock(failing, T, "job", () => Promise.resolve(7)), {
      ran: true,
      value: 7,
    });
  });

  void it("refuses bad input with Validation, without running fn", async () => {
    let called = false;
    const fn = () => {
      called = true;
      return Promise.resolve(0);
    };
    const isValidation = (e: unknown) => e instanceof TaskflowError && e.code === "Validation";
    await assert.rejects(withLock(locks, T, "", fn), isValidation);
    await assert.rejects(withLock(locks, "bad tenant", "job", fn), isValidation);
    await assert.rejects(withLock(locks, T, "job", fn, { leaseMs: 0 }), isValidation);
    await assert.rejects(withLock(locks, T, "job", fn, { waitMs: -1 }), isValidation);
    assert.equal(called, false);
  });
});
