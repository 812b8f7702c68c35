/**
 * The seed's timeline 3: a writer killed with kill -9 between its store
 * write and its fence's completion.
 *
 *   1. node A (createTaskflow, memory cache, the real background jobs) has
 *      published v1 of a definition and holds it cached (a hit);
 *   2. a writer process (support/orphan-writer.ts) beats its owner id,
 *      begins a fence through the real CachedDefinitionStore path, publishes
 *      v2 — the store commits — and is killed with kill -9 before it
 *      completes the fence;
 *   3. node A serves v2 (it bypasses its cache while the fence is open) and
 *      never v1; the ledger shows the fence incomplete, owned by the dead
 *      process;
 *   4. once the owner has been silent for 3 heartbeats (6 s), node A's
 *      reaper completes the fence (not before) and logs why; the revision
 *      moves;
 *   5. node A serves v2 from its cache again (hits grow).
 *
 * On PostgreSQL and MariaDB (SQLite has one writer process per file).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Kysely } from "kysely";
import { pino } from "pino";
import type { StoreSchema } from "../../src/adapters/store/db-schema.ts";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { OWNER_STALE_MS } from "../../src/engine/definition-cache/owner-heartbeat.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../support/backends.ts";
import { minimal } from "../support/definition-fixtures.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const WRITER = "test/definition-cache/support/orphan-writer.ts";
const ACTOR = { tenantId: "acme", actorId: "alice" };
const KEY = "orphan-demo";
/** Stale time + the reaper's 2 s interval + a round on a loaded machine. */
const REAP_WITHIN_MS = OWNER_STALE_MS + 8_000;

interface Committed {
  committed: number;
  owner: string;
}

/** Starts the writer; resolves once its store write has committed (its fence still open). */
async function startWriter(databaseUrl: string): Promise<{ child: ChildProcess } & Committed> {
  const definition = { ...minimal(KEY), name: "Orphan demo v2" };
  const config = { databaseUrl, tenantId: ACTOR.tenantId, key: KEY, definition };
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, JSON.stringify(config)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    once(lines, "line").then(([l]) => String(l)),
    once(child, "exit").then(([code]) => `{"error":"exited with ${String(code)}"}`),
    sleep(30_000).then(() => '{"error":"no commit within 30 s"}'),
  ]);
  lines.close();
  const message = JSON.parse(first) as Partial<Committed> & { error?: string };
  if (message.committed === undefined || message.owner === undefined) {
    child.kill("SIGKILL");
    throw new Error(`the writer did not commit: ${first}`);
  }
  return { child, committed: message.committed, owner: message.owner };
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  const [code, signal] = (await exited) as [number | null, string | null];
  assert.equal(signal, "SIGKILL", `the writer ended by kill -9 (code ${String(code)})`);
}

/** node A's warn lines, as JSON. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString("utf8").split("\n")) {
        if (l.trim() !== "") lines.push(JSON.parse(l) as Record<string, unknown>);
      }
      done();
    },
  });
  return { logger: pino({ level: "warn" }, stream), lines };
}

async function lastBeatOf(db: Database, owner: string): Promise<number> {
  const k = db.coordinationContext.db as Kysely<StoreSchema>;
  const row = await k
    .selectFrom("cache_owners")
    .select("beat_at")
    .where("owner", "=", owner)
    .executeTakeFirstOrThrow();
  return Number(row.beat_at);
}

async function timeline(b: Backend, report: (line: string) => void): Promise<void> {
  const test = await createTestDatabase(b);
  const { logger, lines } = capturedLogger();
  let node: Taskflow | undefined;
  let child: ChildProcess | undefined;
  const db = openDatabase(test.url);
  try {
    const config = loadConfig({
      env: {},
      requireApiKeys: false,
      overrides: {
        databaseUrl: test.url,
        apiKeys: ["orphan-key-0123456789abcdefghijkl"],
        coordination: "sql",
        redisUrl: null,
        addr: "127.0.0.1:0",
        maxEventLoopDelay: 0,
      },
    });
    node = await createTaskflow(config, { logger });
    const stats = node.definitionCache.stats;
    const latest = async () => (await node!.definitions.get(ACTOR, KEY, "latest")).version;

    // 1. v1 published and cached on node A.
    await node.definitions.publish(ACTOR, KEY, minimal(KEY));
    assert.equal(await latest(), 1);
    const hits0 = stats.hits;
    assert.equal(await latest(), 1);
    assert.equal(stats.hits, hits0 + 1, "v1 is served from node A's cache");

    // 2. The writer commits v2 and dies before completing its fence.
    const writer = await startWriter(test.url);
    child = writer.child;
    assert.equal(writer.committed, 2);
    await killHard(writer.child);
    child = undefined;
    const killedAt = Date.now();
    const lastBeat = await lastBeatOf(db, writer.owner);

    // 3. The fence is open, owned by the dead writer; node A reads the store: v2.
    const [fence, ...others] = await db.cacheLedger.listOwnedFences();
    assert.equal(others.length, 0);
    assert.equal(fence?.owner, writer.owner);
    assert.equal(fence?.scope, "workflow");
    const bypasses0 = stats.bypasses;
    const hits1 = stats.hits;
    assert.equal(await latest(), 2, "the committed v2, not the cached v1");
    assert.ok(stats.bypasses > bypasses0, "read past the cache while fenced");
    assert.equal(stats.hits, hits1, "no hit while fenced");

    // 4. Until the reaper completes it, every read is v2; the completion comes after 6 s of silence.
    let reapedSeenAt = 0;
    while (Date.now() - killedAt < REAP_WITHIN_MS) {
      assert.equal(await latest(), 2, "never v1");
      const open = await db.cacheLedger.hasIncomplete("workflow");
      const now = Date.now();
      if (!open) {
        reapedSeenAt = now;
        break;
      }
      await sleep(100);
    }
    assert.ok(reapedSeenAt > 0, `the reaper completed the fence within ${REAP_WITHIN_MS} ms`);
    const silent = reapedSeenAt - lastBeat;
    report(
      `fence completed ${reapedSeenAt - killedAt} ms after the kill, ${silent} ms after the last beat`,
    );
    assert.ok(silent >= OWNER_STALE_MS, `completed after ${silent} ms of silence, not before`);
    // The reaper logs after its commit, which this connection may see first.
    const reaperLine = () => lines.find((l) => l["mutationId"] === fence?.mutationId);
    for (let i = 0; i < 40 && reaperLine() === undefined; i++) await sleep(50);
    const logged = reaperLine();
    assert.equal(logged?.["reason"], "owner-gone", JSON.stringify(lines));
    assert.equal(logged?.["owner"], writer.owner);
    assert.equal(logged?.["scope"], "workflow");
    assert.equal(typeof logged?.["ageMs"], "number");
    assert.equal((await db.cacheLedger.readState("data")).fenced, false);

    // 5. Cached again, at the new revision: v2 from the cache.
    assert.equal(await latest(), 2);
    const hits2 = stats.hits;
    assert.equal(await latest(), 2);
    assert.equal(stats.hits, hits2 + 1, "v2 is served from node A's cache");
  } finally {
    child?.kill("SIGKILL");
    await node?.close();
    await db.close();
    await test.drop();
  }
}

for (const b of [{ name: "postgres" }, { name: "mysql" }] as const) {
  void describe(`timeline 3 (writer killed -9 with its fence open) on ${b.name}`, async () => {
    const opts = await backendTestOptions(b);
    void it("the reaper completes the dead owner's fence; no node ever serves v1", opts, (t) =>
      timeline(b, (line) => t.diagnostic(line)),
    );
  });
}
