/**
 * TriggerRoutes, the node's live table, over an in-memory source whose reads
 * a test finishes in any order: a slower, older read never undoes a newer
 * one; a rebuild and a tenant refresh in flight together keep the newer; a
 * failed refresh is reported and the table keeps its routes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  PublishedHead,
  TenantHead,
} from "../../../../src/engine/definitions/definition-version-store.ts";
import {
  TriggerRoutes,
  type RouteSource,
} from "../../../../src/engine/definitions/triggers/trigger-routes.ts";

const head = (key: string, path: string, version = 1): PublishedHead => ({
  key,
  version,
  body: JSON.stringify({ key, triggers: [{ method: "POST", path }] }),
});

/** Each read waits until the test releases it with the heads it should see. */
class ManualSource implements RouteSource {
  readonly pending: { release(heads: TenantHead[]): void; fail(e: Error): void }[] = [];

  publishedHeads(tenantId: string): Promise<PublishedHead[]> {
    return new Promise((resolve, reject) =>
      this.pending.push({
        release: (heads) => resolve(heads.filter((h) => h.tenantId === tenantId)),
        fail: reject,
      }),
    );
  }

  triggerHeads(): Promise<TenantHead[]> {
    return new Promise((resolve, reject) => this.pending.push({ release: resolve, fail: reject }));
  }
}

const at = (tenantId: string, h: PublishedHead): TenantHead => ({ tenantId, ...h });
const keyAt = (routes: TriggerRoutes, tenantId: string, segments: string[]) => {
  const m = routes.match(tenantId, "POST", segments);
  return m.kind === "match" ? `${m.target.key}@${m.target.version}` : m.kind;
};

void describe("TriggerRoutes", () => {
  void it("a refresh that started earlier and ends later does not undo a newer one", async () => {
    const source = new ManualSource();
    const routes = new TriggerRoutes(source);
    const older = routes.refreshTenant("t");
    const newer = routes.refreshTenant("t");
    source.pending[1]!.release([at("t", head("k", "/new", 2))]);
    await newer;
    source.pending[0]!.release([at("t", head("k", "/old", 1))]);
    await older;
    assert.equal(keyAt(routes, "t", ["new"]), "k@2");
    assert.equal(keyAt(routes, "t", ["old"]), "none");
  });

  void it("a rebuild keeps a tenant refreshed after it started; drops what it no longer has", async () => {
    const source = new ManualSource();
    const routes = new TriggerRoutes(source);
    const first = routes.rebuild();
    source.pending[0]!.release([at("a", head("k", "/a")), at("gone", head("k", "/g"))]);
    await first;
    assert.equal(keyAt(routes, "gone", ["g"]), "k@1");
    const rebuild = routes.rebuild();
    const refresh = routes.refreshTenant("a");
    source.pending[2]!.release([at("a", head("k", "/a2", 2))]);
    await refresh;
    source.pending[1]!.release([at("a", head("k", "/a", 1))]);
    await rebuild;
    assert.equal(keyAt(routes, "a", ["a2"]), "k@2");
    assert.equal(keyAt(routes, "a", ["a"]), "none");
    assert.equal(keyAt(routes, "gone", ["g"]), "none");
  });

  void it("a failed refresh is reported; the table keeps its routes", async () => {
    const source = new ManualSource();
    const failures: string[] = [];
    const routes = new TriggerRoutes(source, (t, e) => failures.push(`${t}: ${e.message}`));
    const built = routes.rebuild();
    source.pending[0]!.release([at("t", head("k", "/x"))]);
    await built;
    const before = routes.table;
    const refresh = routes.refreshTenant("t");
    source.pending[1]!.fail(new Error("down"));
    await refresh;
    assert.deepEqual(failures, ["t: down"]);
    assert.equal(routes.table, before);
    assert.equal(keyAt(routes, "t", ["x"]), "k@1");
  });

  void it("readers holding the old table keep a whole one", async () => {
    const source = new ManualSource();
    const routes = new TriggerRoutes(source);
    const built = routes.rebuild();
    source.pending[0]!.release([at("t", head("k", "/x"))]);
    await built;
    const held = routes.table;
    const refresh = routes.refreshTenant("t");
    source.pending[1]!.release([]);
    await refresh;
    assert.equal(held.match("t", "POST", ["x"]).kind, "match");
    assert.equal(routes.match("t", "POST", ["x"]).kind, "none");
  });
});
