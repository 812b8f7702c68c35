/**
 * TriggerRoutes, the node's live table, over an in-memory source whose reads
 * a test finishes in any order and a routes state the test sets: a lookup
 * rebuilds when the revision moved and waits for it; concurrent lookups share
 * one rebuild; a rebuild that began before a request's state read is not
 * enough for it; the revision recorded is the one read before the snapshot; a
 * fence (or an unreadable ledger) matches the tenant's routes read from the
 * store, coalesced per tenant, and records nothing; the lookup cache remembers a
 * none per revision; a failed rebuild is reported and the table keeps its
 * routes; readers holding the old table keep a whole one; the follower
 * catches up without a request.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import type { LedgerState } from "../../../../src/engine/definition-cache/cache-ledger-port.ts";
import type {
  PublishedHead,
  TenantHead,
} from "../../../../src/engine/definitions/definition-version-store-port.ts";
import { RouteLookupCache } from "../../../../src/engine/definitions/triggers/route-lookup-cache.ts";
import {
  TriggerRoutes,
  type RouteSource,
} from "../../../../src/engine/definitions/triggers/trigger-routes.ts";

const head = (key: string, path: string, version = 1): PublishedHead => ({
  key,
  version,
  body: JSON.stringify({ key, triggers: [{ method: "POST", path }] }),
});
const at = (tenantId: string, h: PublishedHead): TenantHead => ({ tenantId, ...h });

/** Each read waits until the test releases it with the heads it should see. */
class ManualSource implements RouteSource {
  readonly pending: {
    /** Undefined: every tenant's (a rebuild); else one tenant's (a lookup that reads the store). */
    tenantId: string | undefined;
    release(heads: TenantHead[]): void;
    fail(e: Error): void;
  }[] = [];

  triggerHeads(tenantId?: string): Promise<TenantHead[]> {
    return new Promise((resolve, reject) =>
      this.pending.push({ tenantId, release: resolve, fail: reject }),
    );
  }

  /** Resolves once `n` reads have been asked for. */
  async reads(n: number): Promise<void> {
    while (this.pending.length < n) await sleep(1);
  }
}

/** The routes state as the test sets it; counts how often it is asked. */
class SetState {
  state: LedgerState = { revision: 1, fenced: false };
  asked = 0;
  state_(): Promise<LedgerState> {
    this.asked++;
    return Promise.resolve(this.state);
  }
  readonly port = { state: () => this.state_() };
}

function setUp(cache = false) {
  const source = new ManualSource();
  const ledger = new SetState();
  const failures: string[] = [];
  const routes = new TriggerRoutes(source, {
    consistency: ledger.port,
    lookupCache: cache ? new RouteLookupCache({ slidingMs: 60_000 }) : undefined,
    onError: (t, e) => failures.push(`${t}: ${e.message}`),
  });
  return { source, ledger, routes, failures };
}

/** The table at start: route /x of key k in tenant t, at revision 1. */
async function started(cache = false) {
  const s = setUp(cache);
  const built = s.routes.rebuild();
  await s.source.reads(1);
  s.source.pending[0]!.release([at("t", head("k", "/x"))]);
  await built;
  return s;
}

const lookup = async (routes: TriggerRoutes, path: string) => {
  const m = await routes.lookup("t", "POST", path, path.split("/").filter(Boolean));
  return m.kind === "match" ? `${m.target.key}@${m.target.version}` : m.kind;
};

void describe("TriggerRoutes following the routes revision", () => {
  void it("a moved revision: the lookup waits for one rebuild, shared by concurrent ones", async () => {
    const { source, ledger, routes } = await started();
    assert.equal(routes.revision, 1);
    ledger.state = { revision: 2, fenced: false };
    const lookups = Array.from({ length: 20 }, () => lookup(routes, "/y"));
    await source.reads(2);
    await sleep(5);
    assert.equal(source.pending.length, 2, "one rebuild for twenty lookups");
    source.pending[1]!.release([at("t", head("k", "/x")), at("t", head("j", "/y"))]);
    assert.deepEqual(new Set(await Promise.all(lookups)), new Set(["j@1"]));
    assert.equal(routes.revision, 2);
    assert.equal(routes.stats.rebuilds, 2);
  });

  void it("a rebuild that began before the request's read is joined, then one more runs", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 2, fenced: false };
    const first = lookup(routes, "/x");
    await source.reads(2);
    // Revision 3 commits while the rebuild at 2 reads; this request read 3.
    ledger.state = { revision: 3, fenced: false };
    const second = lookup(routes, "/y");
    await sleep(5);
    source.pending[1]!.release([at("t", head("k", "/x"))]);
    assert.equal(await first, "k@1");
    await source.reads(3);
    source.pending[2]!.release([at("t", head("k", "/x")), at("t", head("j", "/y"))]);
    assert.equal(await second, "j@1");
    assert.equal(routes.revision, 3);
  });

  void it("records the revision read before the snapshot: a change during the read rebuilds again", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 2, fenced: false };
    const during = lookup(routes, "/x");
    await source.reads(2);
    ledger.state = { revision: 3, fenced: false };
    source.pending[1]!.release([at("t", head("k", "/x"))]);
    await during;
    assert.equal(routes.revision, 2, "not 3: the snapshot may lack revision 3's change");
    const next = lookup(routes, "/x");
    await source.reads(3);
    source.pending[2]!.release([at("t", head("k", "/x", 2))]);
    assert.equal(await next, "k@2");
    assert.equal(routes.revision, 3);
  });

  void it("a fence: the tenant's routes from the store; nothing rebuilt, cached or recorded", async () => {
    const { source, ledger, routes } = await started(true);
    ledger.state = { revision: 5, fenced: true };
    // Version 2 of k has been published (its publish returned) while another fence is open.
    const x = lookup(routes, "/x");
    await source.reads(2);
    assert.equal(source.pending[1]!.tenantId, "t", "only the request's tenant is read");
    source.pending[1]!.release([at("t", head("k", "/x", 2))]);
    assert.equal(await x, "k@2");
    const y = lookup(routes, "/y");
    await source.reads(3);
    source.pending[2]!.release([at("t", head("k", "/x", 2))]);
    assert.equal(await y, "none");
    assert.equal(routes.revision, 1, "a fenced state is never recorded");
    assert.equal(routes.stats.rebuilds, 1);
    assert.equal(routes.match("t", "POST", ["x"]).kind, "match", "the table is the old one");
    assert.deepEqual([routes.stats.fenced, routes.stats.lookupMisses], [2, 0]);
  });

  void it("an unreadable ledger reads the store too; a store that fails rejects (503)", async () => {
    const { source, ledger, routes } = await started();
    ledger.port.state = () => Promise.reject(new Error("ledger down"));
    const x = lookup(routes, "/x");
    await source.reads(2);
    source.pending[1]!.release([at("t", head("k", "/x", 3))]);
    assert.equal(await x, "k@3");
    const failing = lookup(routes, "/x");
    await source.reads(3);
    source.pending[2]!.fail(new Error("store down"));
    await assert.rejects(failing, /store down/);
  });

  void it("fenced reads per tenant: never one that began before the request, at most two", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 5, fenced: true };
    const early = lookup(routes, "/x");
    await source.reads(2);
    // These arrive while the first read runs: it may predate a publish they must see.
    const late = Array.from({ length: 20 }, () => lookup(routes, "/x"));
    await sleep(5);
    assert.equal(source.pending.length, 2, "the late ones wait for the next read");
    source.pending[1]!.release([at("t", head("k", "/x", 1))]);
    assert.equal(await early, "k@1");
    await source.reads(3);
    source.pending[2]!.release([at("t", head("k", "/x", 2))]);
    assert.deepEqual(new Set(await Promise.all(late)), new Set(["k@2"]));
    assert.equal(source.pending.length, 3, "twenty late lookups shared one read");
    assert.equal(routes.fromStore.reads, 2);
  });

  void it("a rebuild that meets a fence in its second round: the store answers", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 2, fenced: false };
    const first = lookup(routes, "/x");
    await source.reads(2);
    // This request read revision 3, then a fence opens before its own rebuild starts.
    ledger.state = { revision: 3, fenced: false };
    const second = lookup(routes, "/y");
    await sleep(5);
    ledger.state = { revision: 3, fenced: true };
    source.pending[1]!.release([at("t", head("k", "/x"))]);
    assert.equal(await first, "k@1");
    await source.reads(3);
    assert.equal(source.pending[2]!.tenantId, "t", "no rebuild while fenced: a store read");
    source.pending[2]!.release([at("t", head("k", "/x")), at("t", head("j", "/y"))]);
    assert.equal(await second, "j@1");
    assert.equal(routes.revision, 2);
  });

  void it("the lookup cache: a none is a hit at its revision, unreachable at the next", async () => {
    const { source, ledger, routes } = await started(true);
    assert.equal(await lookup(routes, "/y"), "none");
    assert.equal(await lookup(routes, "/y"), "none");
    assert.deepEqual([routes.stats.lookupMisses, routes.stats.lookupHits], [1, 1]);
    ledger.state = { revision: 2, fenced: false };
    const after = lookup(routes, "/y");
    await source.reads(2);
    source.pending[1]!.release([at("t", head("j", "/y"))]);
    assert.equal(await after, "j@1");
    assert.deepEqual([routes.stats.lookupMisses, routes.stats.lookupHits], [2, 1]);
  });

  void it("refresh() rebuilds even while fenced and records no revision", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 4, fenced: true };
    const refreshed = routes.refresh("t");
    await source.reads(2);
    source.pending[1]!.release([at("t", head("j", "/y"))]);
    await refreshed;
    assert.equal(routes.revision, null);
    assert.equal(routes.match("t", "POST", ["y"]).kind, "match");
    // Once the fence is gone, the next lookup rebuilds: a fenced snapshot is never definitive.
    ledger.state = { revision: 5, fenced: false };
    const next = lookup(routes, "/y");
    await source.reads(3);
    assert.equal(source.pending[2]!.tenantId, undefined, "a rebuild");
    source.pending[2]!.release([at("t", head("j", "/y"))]);
    assert.equal(await next, "j@1");
    assert.equal(routes.revision, 5);
  });

  void it("a refresh that joins an older rebuild runs its own after it", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 2, fenced: false };
    const older = lookup(routes, "/y");
    await source.reads(2);
    const refreshed = routes.refresh("t");
    source.pending[1]!.release([at("t", head("k", "/x"))]);
    assert.equal(await older, "none");
    await source.reads(3);
    source.pending[2]!.release([at("t", head("j", "/y"))]);
    await refreshed;
    assert.equal(routes.match("t", "POST", ["y"]).kind, "match");
  });

  void it("a failed refresh is reported; the table keeps its routes", async () => {
    const { source, routes, failures } = await started();
    const before = routes.table;
    const refresh = routes.refresh("t");
    await source.reads(2);
    source.pending[1]!.fail(new Error("down"));
    await refresh;
    assert.deepEqual(failures, ["t: down"]);
    assert.equal(routes.table, before);
    assert.equal(await lookup(routes, "/x"), "k@1");
  });

  void it("readers holding the old table keep a whole one", async () => {
    const { source, routes } = await started();
    const held = routes.table;
    const refresh = routes.refresh("t");
    await source.reads(2);
    source.pending[1]!.release([]);
    await refresh;
    assert.equal(held.match("t", "POST", ["x"]).kind, "match");
    assert.equal(routes.match("t", "POST", ["x"]).kind, "none");
  });

  void it("the follower catches up without a request, and stops", async () => {
    const { source, ledger, routes } = await started();
    ledger.state = { revision: 2, fenced: false };
    routes.follow(10);
    await source.reads(2);
    source.pending[1]!.release([at("t", head("j", "/y"))]);
    for (let i = 0; i < 100 && routes.revision !== 2; i++) await sleep(5);
    assert.equal(routes.revision, 2);
    assert.equal(routes.match("t", "POST", ["y"]).kind, "match");
    await routes.stop();
    const asked = ledger.asked;
    await sleep(50);
    assert.equal(ledger.asked, asked, "no poll after stop()");
  });
});
