/**
 * WF_DEFINITION_CACHE_CONSISTENCY=bounded through the composition root
 * (createTaskflow: the consistency started after migrating, closed on
 * shutdown): two nodes on one PostgreSQL database, a publish on node A read
 * through node B's cache — B serves it from the cache, and the next publish
 * reaches B by NOTIFY while B's poll is a minute away; on SQLite (one node)
 * a publish is read back at once from the node that made it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../support/backends.ts";
import { minimal } from "../support/definition-fixtures.ts";

const KEY = "bounded-key-0123456789abcdefghij";
const ctx = { tenantId: "t1", actorId: "alice" };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function node(url: string): Promise<Taskflow> {
  const config = loadConfig({
    env: {
      WF_DEFINITION_CACHE_CONSISTENCY: "bounded",
      // Nothing but the push (or changed()) can explain what is seen within a test.
      WF_DEFINITION_CACHE_POLL: "60000",
    },
    overrides: { databaseUrl: url, apiKeys: [KEY], logLevel: "silent", rateLimit: false },
  });
  return createTaskflow(config);
}

async function withNodes(b: Backend, count: 1 | 2, fn: (nodes: Taskflow[]) => Promise<void>) {
  const test = await createTestDatabase(b);
  const nodes: Taskflow[] = [];
  try {
    for (let i = 0; i < count; i++) nodes.push(await node(test.url));
    for (const n of nodes) assert.equal(n.definitionCache.consistency.mode, "bounded");
    await fn(nodes);
  } finally {
    for (const n of nodes) await n.close();
    await test.drop();
  }
}

/** Waits until B's data state is A's: the same revision, unfenced. */
async function atSameRevision(a: Taskflow, b: Taskflow, ms: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const [sa, sb] = await Promise.all([
      a.definitionCache.consistency.state("data"),
      b.definitionCache.consistency.state("data"),
    ]);
    if (!sa.fenced && sa.revision === sb.revision && !sb.fenced) return;
    assert.ok(Date.now() - started < ms, `B at A's revision within ${ms} ms`);
    await sleep(5);
  }
}

/** The latest published version of `key` as `tf` reads it; 0 when none. */
async function latest(tf: Taskflow, key: string): Promise<number> {
  try {
    return (await tf.definitions.get(ctx, key, "latest")).version;
  } catch {
    return 0;
  }
}

void describe("bounded consistency through createTaskflow", async () => {
  const postgres = await backendTestOptions({ name: "postgres" });

  void it("postgres, two nodes: B serves hits, A's publish reaches B by NOTIFY", postgres, () =>
    withNodes({ name: "postgres" }, 2, async ([a, b]) => {
      await a!.definitions.publish(ctx, "doc", minimal("doc"));
      // B is told of the fence and of the completion; then it reads "doc" once from the store.
      await atSameRevision(a!, b!, 2000);
      assert.equal(await latest(b!, "doc"), 1);
      const hits = b!.definitionCache.stats.hits;
      for (let i = 0; i < 20; i++) assert.equal(await latest(b!, "doc"), 1);
      assert.equal(b!.definitionCache.stats.hits - hits, 20, "every read a hit");
      // Changed (the same again would be unchanged, no version 2).
      await a!.definitions.publish(ctx, "doc", { ...minimal("doc"), name: "Doc v2" });
      assert.equal(await latest(a!, "doc"), 2, "A reads its own publish at once");
      const since = Date.now();
      while ((await latest(b!, "doc")) !== 2) {
        assert.ok(Date.now() - since < 1000, "B sees version 2 within a second (the push)");
        await sleep(5);
      }
    }),
  );

  void it("sqlite, one node: a publish is read back at once", () =>
    withNodes({ name: "sqlite" }, 1, async ([a]) => {
      assert.equal(await latest(a!, "doc"), 0);
      await a!.definitions.publish(ctx, "doc", minimal("doc"));
      assert.equal(await latest(a!, "doc"), 1);
      assert.equal(await latest(a!, "doc"), 1);
      await a!.definitions.publish(ctx, "doc", { ...minimal("doc"), name: "Doc v2" });
      assert.equal(await latest(a!, "doc"), 2);
    }));
});
