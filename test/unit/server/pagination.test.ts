import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { PageRequest } from "../../../src/engine/human-tasks/human-task-api.ts";
import { decodeCursor, encodeCursor } from "../../../src/server/requests/pagination.ts";
import { authed, sampleTask, stubServer } from "./stub-engine.ts";

void test("cursor round-trips every id", () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[A-Za-z0-9._@:-]{1,128}$/), (id) => {
      assert.equal(decodeCursor(encodeCursor(id)), id);
    }),
  );
});

void test("malformed cursors are Validation errors", () => {
  for (const bad of [
    "dDE=",
    "d",
    "____",
    encodeCursor("has space"),
    encodeCursor("x".repeat(129)),
  ]) {
    assert.throws(() => decodeCursor(bad), { code: "Validation" }, bad);
  }
});

void test("limit and cursor reach the engine; nextCursor is opaque and null at the end", async () => {
  const seen: PageRequest[] = [];
  const app = await stubServer({
    userInbox: (_ctx, _user, page) => {
      seen.push(page);
      return Promise.resolve({ items: [sampleTask()], nextAfter: page.after ? null : "t1" });
    },
  });
  const first = await app.inject({ url: "/v1/tasks?limit=1", headers: authed() });
  assert.equal(first.statusCode, 200);
  const cursor = first.json().nextCursor as string;
  assert.equal(cursor, encodeCursor("t1"));
  const second = await app.inject({ url: `/v1/tasks?limit=1&cursor=${cursor}`, headers: authed() });
  assert.equal(second.json().nextCursor, null);
  assert.deepEqual(seen, [
    { limit: 1, after: undefined },
    { limit: 1, after: "t1" },
  ]);
  await app.inject({ url: "/v1/tasks", headers: authed() });
  assert.equal(seen[2]?.limit, 50, "default page size");
  await app.close();
});

void test("bad limits and cursors → 400 on every list route", async () => {
  const app = await stubServer();
  for (const path of ["/v1/tasks", "/v1/processes", "/v1/definitions"]) {
    for (const q of [
      "limit=0",
      "limit=501",
      "limit=-1",
      "limit=abc",
      "limit=1.5",
      "limit=1&limit=2",
      "cursor=%21",
      "cursor=dDE%3D",
      "cursor=",
    ]) {
      const r = await app.inject({ url: `${path}?${q}`, headers: authed() });
      assert.equal(r.statusCode, 400, `${path}?${q}`);
      assert.equal(r.json().code, "Validation");
    }
  }
  await app.close();
});
