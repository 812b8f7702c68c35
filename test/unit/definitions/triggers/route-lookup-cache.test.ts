/**
 * The hook lookup cache: a cached none is a hit (not a miss), entries of one
 * revision are never answers at another, expiry slides with reads, long
 * paths are never cached, the bound holds, and a caller changing the params
 * it got does not change the cache.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import {
  MAX_CACHED_PATH,
  RouteLookupCache,
} from "../../../../src/engine/definitions/triggers/route-lookup-cache.ts";
import type { RouteMatch } from "../../../../src/engine/definitions/triggers/route-table.ts";

const key = (path: string, revision = 1) => ({ revision, tenantId: "t", method: "POST", path });
const match: RouteMatch = {
  kind: "match",
  target: { key: "k", version: 1, path: "/o/{id}", responds: false },
  params: { id: "42" },
};

void describe("RouteLookupCache", () => {
  void it("a none is a hit, distinct from a miss; another revision is a miss", () => {
    const cache = new RouteLookupCache({ slidingMs: 60_000 });
    assert.equal(cache.get(key("/x")), undefined);
    cache.set(key("/x"), { kind: "none" });
    assert.deepEqual(cache.get(key("/x")), { kind: "none" });
    assert.equal(cache.get(key("/x", 2)), undefined);
    assert.equal(cache.get({ ...key("/x"), tenantId: "u" }), undefined);
    assert.equal(cache.get({ ...key("/x"), method: "GET" }), undefined);
  });

  void it("expiry slides with every read", async () => {
    const cache = new RouteLookupCache({ slidingMs: 1000 });
    cache.set(key("/read"), { kind: "none" });
    cache.set(key("/idle"), { kind: "none" });
    // Reads 200 ms apart keep it for 1.6 s, past the 1 s an unread entry lives.
    for (let i = 0; i < 8; i++) {
      await sleep(200);
      assert.notEqual(cache.get(key("/read")), undefined, `read ${i}`);
    }
    assert.equal(cache.get(key("/idle")), undefined, "1.6 s without a read");
  });

  void it("long paths are not cached; the bound holds", () => {
    const cache = new RouteLookupCache({ slidingMs: 60_000, maxEntries: 3 });
    cache.set(key("/" + "a".repeat(MAX_CACHED_PATH)), { kind: "none" });
    assert.equal(cache.size, 0);
    for (let i = 0; i < 10; i++) cache.set(key(`/p${i}`), { kind: "none" });
    assert.equal(cache.size, 3);
  });

  void it("params are the caller's own copy", () => {
    const cache = new RouteLookupCache({ slidingMs: 60_000 });
    cache.set(key("/o/42"), match);
    const first = cache.get(key("/o/42"));
    assert.equal(first?.kind, "match");
    if (first?.kind === "match") first.params["id"] = "changed";
    const again = cache.get(key("/o/42"));
    assert.deepEqual(again?.kind === "match" && again.params, { id: "42" });
  });
});
