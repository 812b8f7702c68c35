/**
 * The reaper's rule on its own (no database): which fence it completes and
 * why. The owner's last sign of life is the later of its last beat and the
 * fence's creation; the max age applies whatever the owner does; 0 turns
 * the age rule off.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OwnedFence } from "../../../src/engine/definition-cache/cache-ledger-port.ts";
import { reapReason } from "../../../src/engine/definition-cache/fence-reaper.ts";

const fence = (ageMs: number, ownerSilentMs: number | null): OwnedFence => ({
  id: 1,
  mutationId: "m-1",
  scope: "workflow",
  owner: "host/1/boot",
  createdAt: new Date(0),
  ageMs,
  ownerSilentMs,
});

const rule = { maxAgeMs: 60_000, staleOwnerMs: 6_000 };

test("a live owner's fence younger than the max age is left alone", () => {
  assert.equal(reapReason(fence(5_000, 1_000), rule), null);
  assert.equal(reapReason(fence(59_999, 5_999), rule), null);
});

test("an owner silent for the stale time is gone", () => {
  assert.equal(reapReason(fence(6_000, 6_000), rule), "owner-gone");
  assert.equal(reapReason(fence(30_000, 20_000), rule), "owner-gone");
});

test("a fence's creation is a sign of life: an owner that beat long ago but just wrote it is not gone", () => {
  assert.equal(reapReason(fence(1_000, 600_000), rule), null);
  assert.equal(reapReason(fence(6_000, 600_000), rule), "owner-gone");
});

test("an owner without a heartbeat row is judged by the fence's age", () => {
  assert.equal(reapReason(fence(5_999, null), rule), null);
  assert.equal(reapReason(fence(6_000, null), rule), "owner-gone");
});

test("older than the max age: completed although the owner beats; 0 means never by age", () => {
  assert.equal(reapReason(fence(60_000, 100), rule), "max-age");
  assert.equal(reapReason(fence(3_600_000, 100), { ...rule, maxAgeMs: 0 }), null);
  assert.equal(reapReason(fence(3_600_000, 7_000), { ...rule, maxAgeMs: 0 }), "owner-gone");
});
