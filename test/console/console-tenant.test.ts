/**
 * WF_CONSOLE_TENANT on PostgreSQL (two nodes share one database): a Console bound to tenant "acme" shows and acts
 * on acme's tasks only, whatever X-Tenant-Id the browser sends, and a login
 * made there is kept under acme (the default tenant's Console of the same
 * database does not know it).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  consoleTestOptions,
  logIn,
  startConsoleNode,
  type Browser,
  type ConsoleNode,
} from "./support/console-node.ts";

interface Task {
  id: string;
  claimedBy: string | null;
}

const TENANT = "acme";

void describe("a Console bound to one tenant (WF_CONSOLE_TENANT)", async () => {
  const options = await consoleTestOptions("postgres");
  if (options.skip !== undefined) {
    void it("skipped", options, () => undefined);
    return;
  }
  let node: ConsoleNode;
  let bob: Browser;
  const tasks: Record<string, Task> = {};

  /** A task for bob in `tenant`, assigned by alice through the engine's own API. */
  async function taskForBob(tenant: string): Promise<Task> {
    const headers = { "x-tenant-id": tenant };
    const started = await node.engine({
      method: "POST",
      url: "/v1/processes",
      headers,
      payload: { processKey: "leave" },
    });
    assert.equal(started.statusCode, 201, started.body);
    const assigned = await node.engine({
      method: "POST",
      url: "/v1/assignments",
      headers,
      payload: {
        parentInstanceId: started.json<{ instanceId: string }>().instanceId,
        assignee: { kind: "user", id: "bob" },
      },
    });
    assert.equal(assigned.statusCode, 201, assigned.body);
    return assigned.json<{ task: Task }>().task;
  }

  before(async () => {
    node = await startConsoleNode("postgres", { consoleTenant: TENANT });
    tasks.acme = await taskForBob(TENANT);
    tasks.default = await taskForBob("default");
    bob = await logIn(node, "bob");
  });
  after(() => node?.close());

  const inboxIds = async (headers: Record<string, string>) => {
    const r = await node.call({ method: "GET", url: "/console/api/engine/tasks", headers });
    assert.equal(r.statusCode, 200, r.body);
    return r.json<{ items: Task[] }>().items.map((t) => t.id);
  };

  it("the inbox holds the tenant's task and not the default tenant's, even when the browser asks for it", async () => {
    for (const headers of [bob.read(), { ...bob.read(), "x-tenant-id": "default" }]) {
      const ids = await inboxIds(headers);
      assert.ok(ids.includes(tasks.acme!.id), "acme's task is in the inbox");
      assert.ok(!ids.includes(tasks.default!.id), "the default tenant's task is not");
    }
  });

  it("acts in the tenant: claims acme's task; the default tenant's is not found", async () => {
    const claim = (id: string) =>
      node.call({
        method: "POST",
        url: `/console/api/engine/tasks/${id}/claim`,
        headers: { ...bob.write(), "x-tenant-id": "default" },
      });
    const ours = await claim(tasks.acme!.id);
    assert.equal(ours.statusCode, 200, ours.body);
    assert.equal(ours.json<Task>().claimedBy, "bob");
    const theirs = await claim(tasks.default!.id);
    assert.equal(theirs.statusCode, 404, theirs.body);
    const untouched = await node.engine({ method: "GET", url: `/v1/tasks/${tasks.default!.id}` });
    assert.equal(untouched.json<Task>().claimedBy, null);
  });

  it("the login is kept under the tenant: a Console of the default tenant on the same database refuses it", async () => {
    // Same database and key prefix: only the tenant differs.
    const other = await startConsoleNode("postgres", {
      databaseUrl: node.databaseUrl,
      keyPrefix: node.keyPrefix,
    });
    try {
      const r = await other.call({
        method: "GET",
        url: "/console/api/session",
        headers: bob.read(),
      });
      assert.equal(r.statusCode, 401, r.body);
      const here = await node.call({
        method: "GET",
        url: "/console/api/session",
        headers: bob.read(),
      });
      assert.equal(here.statusCode, 200, here.body);
      assert.equal(here.json<{ tenant: string }>().tenant, TENANT, "the page is told its tenant");
    } finally {
      await other.close();
    }
  });
});
