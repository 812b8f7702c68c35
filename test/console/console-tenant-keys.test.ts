/**
 * The API keys of a Console bound to tenant "acme" are acme's: its admin sees only acme's
 * keys, mints keys scoped to acme (never to another tenant nor to every tenant), and
 * cannot revoke or rotate another tenant's key, while the engine's own key routes still
 * answer every tenant's keys to a key of every tenant.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { logIn, startConsoleNode, type Browser, type ConsoleNode } from "./support/console-node.ts";

interface Key {
  id: string;
  name: string;
  tenant: string | null;
  state: string;
  key?: string;
}

const TENANT = "acme";

void describe("a Console's API keys are its tenant's", () => {
  let node: ConsoleNode;
  let dave: Browser;
  const keys: Record<string, Key> = {};

  /** The engine's whole list, with its own key of every tenant. */
  const engineKeys = async () => (await node.engine({ url: "/v1/keys" })).json<{ items: Key[] }>();
  const consoleKeys = () => node.call({ url: "/console/api/engine/keys", headers: dave.read() });
  const mint = (payload: unknown) =>
    node.call({
      method: "POST",
      url: "/console/api/engine/keys",
      headers: { ...dave.write(), "content-type": "application/json" },
      payload: JSON.stringify(payload),
    });

  before(async () => {
    node = await startConsoleNode("sqlite", { consoleTenant: TENANT });
    for (const [name, tenant] of [
      ["acme-backend", TENANT],
      ["globex-backend", "globex"],
      ["every-tenant", null],
    ] as const) {
      const r = await node.engine({ method: "POST", url: "/v1/keys", payload: { name, tenant } });
      assert.equal(r.statusCode, 201, r.body);
      keys[name] = r.json<Key>();
    }
    dave = await logIn(node, "dave");
  });
  after(() => node.close());

  void it("lists only the keys of its tenant", async () => {
    const r = await consoleKeys();
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(
      r.json<{ items: Key[] }>().items.map((k) => [k.name, k.tenant]),
      [["acme-backend", TENANT]],
    );
    assert.equal((await engineKeys()).items.length, 3, "the engine's own list is unchanged");
  });

  void it("mints keys scoped to its tenant; refuses another tenant or every tenant (403)", async () => {
    const made = await mint({ name: "acme-ci" });
    assert.equal(made.statusCode, 201, made.body);
    const key = made.json<Key>();
    assert.equal(key.tenant, TENANT);
    assert.ok(key.key !== undefined);
    // The new key acts for acme only.
    const own = await node.taskflow.server.inject({
      url: "/v1/definitions",
      headers: { "x-api-key": key.key, "x-tenant-id": TENANT },
    });
    assert.equal(own.statusCode, 200, own.body);
    const other = await node.taskflow.server.inject({
      url: "/v1/definitions",
      headers: { "x-api-key": key.key, "x-tenant-id": "globex" },
    });
    assert.equal(other.statusCode, 403, other.body);
    assert.equal((await mint({ name: "acme-named", tenant: TENANT })).statusCode, 201);

    const before = (await engineKeys()).items.length;
    for (const tenant of ["globex", null]) {
      const refused = await mint({ name: "escalation", tenant });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.match(String(refused.headers["content-type"]), /problem\+json/);
      assert.match(refused.json<{ detail: string }>().detail, /tenant 'acme' only/);
    }
    const notJson = await node.call({
      method: "POST",
      url: "/console/api/engine/keys",
      headers: { ...dave.write(), "content-type": "application/json" },
      payload: "[1]",
    });
    assert.equal(notJson.statusCode, 400, notJson.body);
    assert.equal((await engineKeys()).items.length, before, "a refused mint wrote nothing");
  });

  void it("revokes and rotates its tenant's keys only; another tenant's key is 404 and stays live", async () => {
    for (const name of ["globex-backend", "every-tenant"]) {
      const id = keys[name]?.id ?? "";
      for (const action of ["revoke", "rotate"]) {
        const r = await node.call({
          method: "POST",
          url: `/console/api/engine/keys/${id}/${action}`,
          headers: dave.write(),
        });
        assert.equal(r.statusCode, 404, `${action} ${name}: ${r.body}`);
      }
    }
    const all = (await engineKeys()).items;
    assert.deepEqual(
      all.filter((k) => k.tenant !== TENANT).map((k) => k.state),
      ["live", "live"],
      "another tenant's keys were touched",
    );
    const mine = keys["acme-backend"]?.id ?? "";
    const rotated = await node.call({
      method: "POST",
      url: `/console/api/engine/keys/${mine}/rotate`,
      headers: dave.write(),
    });
    assert.equal(rotated.statusCode, 201, rotated.body);
    const next = rotated.json<Key>();
    assert.equal(next.tenant, TENANT);
    const revoked = await node.call({
      method: "POST",
      url: `/console/api/engine/keys/${next.id}/revoke`,
      headers: dave.write(),
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(revoked.json<Key>().state, "revoked");
    const unknown = await node.call({
      method: "DELETE",
      url: `/console/api/engine/keys/${mine}`,
      headers: dave.write(),
    });
    assert.equal(unknown.statusCode, 404, unknown.body);
  });
});
