/**
 * The PostgreSQL LISTEN connection for durable wake-ups, through a fault proxy:
 * after its connection is cut (repeatedly, also while it is reconnecting) or
 * refused for a while, it listens again on exactly one connection and
 * notifications wake the worker again; unsubscribing closes it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { pgWakeups } from "../../src/adapters/store/run-store/pg-wakeups.ts";
import { RUNS_CHANNEL } from "../../src/adapters/store/run-store/sql-run-store.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.ts";

async function until(what: string, ok: () => boolean | Promise<boolean>, withinMs: number) {
  const deadline = Date.now() + withinMs;
  while (!(await ok())) {
    assert.ok(Date.now() < deadline, `${what} within ${withinMs} ms`);
    await sleep(20);
  }
}

describe(
  "PostgreSQL wake-ups survive connection loss",
  await backendTestOptions({ name: "postgres" }),
  () => {
    let drop: (() => Promise<void>) | undefined;
    let url: string;
    let proxy: FaultProxy;
    let admin: pg.Client;

    before(async () => {
      const db = await createTestDatabase({ name: "postgres" });
      drop = () => db.drop();
      url = db.url;
      const u = new URL(url);
      proxy = await startFaultProxy(u.hostname, Number(u.port));
      admin = new pg.Client({ connectionString: url });
      await admin.connect();
    });

    after(async () => {
      await admin?.end();
      await proxy?.close();
      await drop?.();
    });

    const listeners = async () => {
      const r = await admin.query(
        `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`,
      );
      return (r.rows[0] as { n: number }).n;
    };

    const sessions = async () => {
      const r = await admin.query(
        `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()`,
      );
      return (r.rows[0] as { n: number }).n;
    };

    test("a cut while LISTEN is in flight leaves one listener, not two", async () => {
      let wakes = 0;
      const unsubscribe = await pgWakeups(proxy.urlFor(url)).subscribe(() => wakes++);
      try {
        await until("the first LISTEN", async () => (await listeners()) === 1, 5_000);
        // 200 ms each way: the reconnect's LISTEN is in flight for 400 ms after
        // its session exists, and the cut lands in that window.
        proxy.latency(200);
        proxy.cut();
        await until("the session of the reconnect", async () => (await sessions()) === 1, 10_000);
        await sleep(300);
        proxy.cut();
        proxy.latency(0);
        await sleep(6_000); // any reconnects, doubled or not, are done by now
        assert.equal(await listeners(), 1, "exactly one LISTEN session");
        assert.equal(proxy.open, 1, "exactly one connection through the proxy");
      } finally {
        proxy.latency(0);
        await unsubscribe();
      }
      await until("no connection after unsubscribe", () => proxy.open === 0, 2_000);
      assert.ok(wakes >= 2, "woken after each (re)subscription");
    });

    test("reconnects after cuts and a refusal, on one connection, and wakes again", async () => {
      let wakes = 0;
      const unsubscribe = await pgWakeups(proxy.urlFor(url)).subscribe(() => wakes++);
      try {
        await until("the first LISTEN", async () => (await listeners()) === 1, 5_000);
        // Cut again and again, also while the listener is reconnecting.
        for (let i = 0; i < 4; i++) {
          proxy.cut();
          await sleep(150 * i);
        }
        // Refused for a while: it keeps trying, backing off, and never doubles up.
        proxy.refuse(true);
        await sleep(1_500);
        proxy.refuse(false);
        await until("LISTEN again", async () => (await listeners()) >= 1, 8_000);
        await sleep(1_500); // time for any second listener to appear
        assert.equal(await listeners(), 1, "exactly one LISTEN session");
        assert.equal(proxy.open, 1, "exactly one connection through the proxy");
        const before = wakes;
        await admin.query(`select pg_notify('${RUNS_CHANNEL}', '')`);
        await until("a wake from NOTIFY", () => wakes > before, 2_000);
      } finally {
        await unsubscribe();
      }
      await until("no connection after unsubscribe", () => proxy.open === 0, 2_000);
    });
  },
);
