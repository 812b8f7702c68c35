/**
 * A lock holder killed with kill -9 (no release, no close, no goodbye): its
 * lock passes to another node — at once on PostgreSQL and MariaDB, whose
 * servers end the dead process's session and with it the session lock; after
 * the lease on Redis, which knows no session — and a write fenced by the dead
 * holder's token is refused.
 *
 * The holder is its own process (support/lock-holder.ts) that keeps its lock
 * with withLock, extending every lease/3, so before the kill the lock is
 * held past its lease, as a live holder's is.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Locks } from "../../src/engine/coordination/locks-port.ts";
import {
  coordinationTestOptions,
  openTestCoordination,
  REDIS_TEST_URL,
  type CoordinationBackendName,
} from "./support/coordination-backends.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const HOLDER = "test/coordination/support/lock-holder.ts";
const T = "tenant-a";
const NAME = "nightly-report";
const LEASE_MS = 1500;

/**
 * The fenced resource: a register that refuses a write whose token is not the
 * lock's newest (Locks.isCurrent) or is older than one it already accepted.
 */
class FencedRegister {
  value: string | null = null;
  #highest = 0n;

  constructor(private readonly locks: Locks) {}

  async write(token: bigint, value: string): Promise<boolean> {
    if (token < this.#highest || !(await this.locks.isCurrent(T, NAME, token))) return false;
    this.#highest = token;
    this.value = value;
    return true;
  }
}

/** Starts the holder; resolves its token once it holds the lock. */
async function startHolder(config: object): Promise<{ child: ChildProcess; token: bigint }> {
  const child = spawn(process.execPath, ["--import", "tsx", HOLDER, JSON.stringify(config)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    once(lines, "line").then(([l]) => String(l)),
    once(child, "exit").then(([code]) => `{"error":"exited with ${String(code)}"}`),
    sleep(20_000).then(() => '{"error":"no token within 20 s"}'),
  ]);
  lines.close();
  const message = JSON.parse(first) as { token?: string; error?: string };
  if (message.token === undefined) {
    child.kill("SIGKILL");
    throw new Error(`the holder did not take the lock: ${message.error}`);
  }
  return { child, token: BigInt(message.token) };
}

async function killHard(child: ChildProcess): Promise<number> {
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
  return Date.now();
}

const cases: { backend: CoordinationBackendName; handover: "session" | "lease" }[] = [
  { backend: "postgres", handover: "session" },
  { backend: "mysql", handover: "session" },
  { backend: "redis", handover: "lease" },
];

for (const { backend, handover } of cases) {
  void describe(
    `kill -9 of a lock holder: ${backend}`,
    await coordinationTestOptions(backend),
    () => {
      void it(
        handover === "session"
          ? "the lock passes within a second and the dead holder's token is refused"
          : "the lock passes after the lease and the dead holder's token is refused",
        async (ctx) => {
          const t = await openTestCoordination(backend);
          let child: ChildProcess | undefined;
          try {
            const locks = t.coordination.locks;
            const register = new FencedRegister(locks);
            const holder = await startHolder({
              backend,
              databaseUrl: t.databaseUrl,
              redisUrl: REDIS_TEST_URL,
              keyPrefix: t.keyPrefix,
              tenant: T,
              name: NAME,
              leaseMs: LEASE_MS,
            });
            child = holder.child;
            assert.equal(await register.write(holder.token, "from the first holder"), true);

            // Alive, it keeps the lock past its lease by extending it.
            await sleep(LEASE_MS + 300);
            assert.equal(await locks.acquire(T, NAME), null, "a live holder keeps its lock");

            const killedAt = await killHard(child);
            const next = await locks.acquire(T, NAME, { waitMs: 10_000, leaseMs: 5000 });
            const after = Date.now() - killedAt;
            assert.ok(next !== null, "another node takes the dead holder's lock");
            ctx.diagnostic(`taken ${after} ms after the kill`);
            if (handover === "session") {
              assert.ok(after < 1500, `taken ${after} ms after the kill (the session ended)`);
            } else {
              // The last extend was at most lease/3 before the kill.
              assert.ok(
                after >= LEASE_MS - LEASE_MS / 3 - 300 && after < LEASE_MS + 1500,
                `taken ${after} ms after the kill (lease ${LEASE_MS} ms)`,
              );
            }
            assert.ok(next.token > holder.token, "a newer token");

            assert.equal(await register.write(next.token, "from the next holder"), true);
            assert.equal(
              await register.write(holder.token, "a late write from the dead holder"),
              false,
              "the old token is fenced off",
            );
            assert.equal(await locks.isCurrent(T, NAME, holder.token), false);
            assert.equal(register.value, "from the next holder");
            await next.release();
          } finally {
            if (child !== undefined && child.exitCode === null && child.signalCode === null) {
              child.kill("SIGKILL");
            }
            await t.close();
          }
        },
      );
    },
  );
}

void describe("kill -9 of a lock holder: sqlite", () => {
  void it(
    "has no second process to hand over to",
    { skip: "SQLite is one process per database file: its locks live and die with that process" },
    () => undefined,
  );
});
