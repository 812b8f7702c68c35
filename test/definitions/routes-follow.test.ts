/**
 * Route tables following the routes revision across nodes: two createTaskflow
 * nodes on one MariaDB database (the `mysql-2-nodes` deployment). A publish
 * through node A answers on node B's /v1/hooks without a restart — also when
 * B had remembered the path as "no trigger" — and an idle B catches up by its
 * follower alone; a retraction through A removes the route on B; while a
 * fence is open B serves its tenant's routes from the store and neither
 * rebuilds nor records, and rebuilds once the fence is completed; concurrent requests that see a new revision
 * share one rebuild (counted on B's own table, and with a wrapper counting
 * triggerHeads reads).
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { TriggerRoutes } from "../../src/engine/definitions/triggers/trigger-routes.ts";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "routes-follow-key-0123456789abcdef";
const kind = deployments.find((d) => d.name === "mysql-2-nodes")!;
const headers = { "x-api-key": KEY, "x-actor-id": "alice", "x-tenant-id": "t1" };

const hookDoc = (key: string, paths: string[]) => ({
  key,
  name: key,
  start: "done",
  triggers: paths.map((path) => ({ method: "POST", path })),
  states: { done: { type: "end" } },
});

void describe("route tables follow the routes revision (two nodes, MariaDB)", async () => {
  const options = await kind.testOptions();
  let deployment: Deployment;
  let a: Taskflow;
  let b: Taskflow;
  let database: Database;

  before(async () => {
    if (options.skip !== undefined) return;
    deployment = await kind.start({ apiKeys: [KEY], logLevel: "silent", rateLimit: false });
    [a, b] = deployment.nodes as [Taskflow, Taskflow];
    // A third handle on the same database, as an operator's or a dying writer's would be.
    database = openDatabase(a.config.databaseUrl);
  });

  after(async () => {
    await database?.close();
    await deployment?.close();
  });

  const publish = async (node: Taskflow, key: string, paths: string[]) => {
    const r = await node.server.inject({
      method: "POST",
      url: `/v1/definitions/${key}/publish`,
      headers,
      payload: hookDoc(key, paths),
    });
    assert.equal(r.statusCode, 201, r.body);
    return r.json<{ version: number }>().version;
  };

  const hook = async (node: Taskflow, path: string) =>
    (await node.server.inject({ method: "POST", url: `/v1/hooks${path}`, headers })).statusCode;

  test(
    "a publish through A is served by B without a restart, also a path B remembered as none",
    options,
    async () => {
      assert.equal(await hook(b, "/follow/one"), 404);
      assert.equal(await hook(b, "/follow/one"), 404, "the second one is the cached none");
      assert.ok(b.triggerRoutes.stats.lookupHits >= 1, "a none is a cache hit");
      await publish(a, "follow-one", ["/follow/one"]);
      assert.equal(await hook(b, "/follow/one"), 202);
      assert.equal(await hook(a, "/follow/one"), 202);
    },
  );

  test("an idle B catches up by its follower, without a request", options, async () => {
    const rebuilds = b.triggerRoutes.stats.rebuilds;
    await publish(a, "follow-idle", ["/follow/idle"]);
    const revision = await database.cacheLedger.routesRevision();
    const start = Date.now();
    while ((b.triggerRoutes.revision ?? 0) < revision && Date.now() - start < 3000) await sleep(20);
    assert.ok((b.triggerRoutes.revision ?? 0) >= revision, `B at ${b.triggerRoutes.revision}`);
    assert.equal(b.triggerRoutes.stats.rebuilds, rebuilds + 1);
    assert.equal(b.triggerRoutes.match("t1", "POST", ["follow", "idle"]).kind, "match");
  });

  test("a retraction through A removes the route on B", options, async () => {
    const version = await publish(a, "follow-gone", ["/follow/gone"]);
    assert.equal(await hook(b, "/follow/gone"), 202);
    const r = await a.server.inject({
      method: "POST",
      url: `/v1/definitions/follow-gone/versions/${version}/retract`,
      headers,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(await hook(b, "/follow/gone"), 404);
    assert.equal(await hook(b, "/follow/one"), 202, "the other routes stay");
  });

  test(
    "an open fence: B serves from the store, rebuilds and records nothing; completed, B rebuilds",
    options,
    async () => {
      assert.equal(await hook(b, "/follow/one"), 202);
      const fence = await database.cacheLedger.beginMutation("workflow", "test/1/fence");
      try {
        await publish(a, "follow-fenced", ["/follow/fenced"]);
        assert.equal(
          await hook(a, "/follow/fenced"),
          202,
          "A built its own table after its publish",
        );
        const revision = b.triggerRoutes.revision;
        const rebuilds = b.triggerRoutes.stats.rebuilds;
        const fenced = b.triggerRoutes.stats.fenced;
        assert.equal(await hook(b, "/follow/fenced"), 202, "B read t1's routes from the store");
        assert.equal(await hook(b, "/follow/one"), 202, "and the old routes too");
        assert.equal(b.triggerRoutes.stats.fenced, fenced + 2);
        assert.equal(b.triggerRoutes.match("t1", "POST", ["follow", "fenced"]).kind, "none");
        await sleep(700); // more than one follower poll
        assert.equal(b.triggerRoutes.revision, revision, "nothing recorded while fenced");
        assert.equal(b.triggerRoutes.stats.rebuilds, rebuilds, "nothing rebuilt while fenced");
      } finally {
        await database.cacheLedger.completeMutation(fence);
      }
      assert.equal(await hook(b, "/follow/fenced"), 202);
      assert.equal(b.triggerRoutes.match("t1", "POST", ["follow", "fenced"]).kind, "match");
    },
  );

  test("concurrent requests that see a new revision share one rebuild", options, async () => {
    await sleep(700); // the follower settles first
    const rebuilds = b.triggerRoutes.stats.rebuilds;
    await publish(a, "follow-many", ["/follow/many"]);
    const statuses = await Promise.all(Array.from({ length: 30 }, () => hook(b, "/follow/many")));
    assert.deepEqual(new Set(statuses), new Set([202]));
    assert.equal(b.triggerRoutes.stats.rebuilds, rebuilds + 1, "one rebuild on B");

    // The same with a table over a wrapper that counts the snapshot reads.
    let reads = 0;
    const counted = {
      triggerHeads: () => {
        reads++;
        return database.definitions.triggerHeads();
      },
    };
    const routes = new TriggerRoutes(counted, { consistency: b.definitionCache.consistency });
    await routes.rebuild();
    await publish(a, "follow-more", ["/follow/more"]);
    const found = await Promise.all(
      Array.from({ length: 50 }, () =>
        routes.lookup("t1", "POST", "/follow/more", ["follow", "more"]),
      ),
    );
    assert.deepEqual(new Set(found.map((m) => m.kind)), new Set(["match"]));
    assert.equal(reads, 2, "the first table, then one rebuild for fifty lookups");
  });
});
