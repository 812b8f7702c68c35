import assert from "node:assert/strict";
import { test } from "node:test";
import { createDirectory } from "../../../src/adapters/directory/create-directory.ts";
import { OpenDirectory } from "../../../src/adapters/directory/open-directory.ts";
import { StaticDirectory } from "../../../src/adapters/directory/static-directory.ts";

void test("no users and no group members → the open directory", () => {
  for (const groups of [{}, { empty: [] }] as Record<string, string[]>[]) {
    const d = createDirectory({ users: [], groups });
    assert.ok(d instanceof OpenDirectory);
    assert.equal(d.checksIds, false);
    assert.equal(d.userExists("anyone"), true);
    assert.equal(d.isMember("anyone", "any-group"), true);
    assert.deepEqual(d.groupsOf("anyone"), []);
  }
});

void test("WF_USERS alone → static", () => {
  const d = createDirectory({ users: ["alice"], groups: {} });
  assert.ok(d instanceof StaticDirectory);
  assert.equal(d.checksIds, true);
  assert.equal(d.userExists("alice"), true);
  assert.equal(d.userExists("mallory"), false);
  assert.equal(d.groupExists("clerks"), false);
});

void test("groups alone → static; members are users; membership from the groups", () => {
  const d = createDirectory({
    users: [],
    groups: { clerks: ["bob", "carol"], ops: ["bob"], none: [] },
  });
  assert.ok(d instanceof StaticDirectory);
  assert.equal(d.userExists("bob"), true);
  assert.equal(d.userExists("alice"), false);
  assert.equal(d.groupExists("none"), true);
  assert.equal(d.isMember("carol", "clerks"), true);
  assert.equal(d.isMember("carol", "ops"), false);
  assert.equal(d.isMember("carol", "unknown"), false);
  assert.deepEqual([...d.groupsOf("bob")].sort(), ["clerks", "ops"]);
  assert.deepEqual(d.groupsOf("zed"), []);
});
