/** UUIDv7 ids: format, uniqueness and creation order (keyset pagination relies on it). */
import assert from "node:assert/strict";
import { it } from "node:test";
import { newId } from "../../../src/domain/ids.ts";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it("20,000 ids across the random pool's refills: valid v7, unique, in creation order", () => {
  const t0 = Date.now();
  const ids: string[] = [];
  // 5 ids per millisecond: exercises the in-millisecond counter and the pool (256 ids per refill).
  for (let i = 0; i < 20_000; i++) ids.push(newId(t0 + Math.floor(i / 5)));
  for (const id of ids) assert.match(id, V7);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(parseInt(ids[0]!.replace(/-/g, "").slice(0, 12), 16), t0);
});

it("ids made in one millisecond still sort in creation order", () => {
  const now = Date.now() + 60_000;
  const ids = Array.from({ length: 1000 }, () => newId(now));
  assert.deepEqual([...ids].sort(), ids);
});
