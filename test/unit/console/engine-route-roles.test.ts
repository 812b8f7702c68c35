import assert from "node:assert/strict";
import { test } from "node:test";
import { roleFor } from "../../../src/console/engine-route-roles.ts";

const role = (method: string, path: string) => roleFor(method, path.split("/"));

test("the route→role table: user, operator and admin routes; everything else is not forwarded", () => {
  assert.equal(role("GET", "tasks"), "user");
  assert.equal(role("POST", "tasks/t1/complete"), "user");
  assert.equal(role("GET", "definitions/schema"), "user");
  assert.equal(role("POST", "definitions/validate"), "operator");
  assert.equal(role("PUT", "definitions/leave/draft"), "operator");
  assert.equal(role("GET", "runs"), "operator");
  assert.equal(role("POST", "runs/r1/signals/go"), "operator");
  assert.equal(role("POST", "admin/cache/mutations/m1/complete"), "operator");
  assert.equal(role("POST", "definitions/leave/publish"), "admin");
  assert.equal(role("POST", "definitions/leave/versions/3/retract"), "admin");
  assert.equal(role("DELETE", "keys/k1"), "admin");
  assert.equal(role("GET", "keys"), "admin", "the key list");
  assert.equal(role("POST", "keys"), "admin", "creating a key");
  assert.equal(role("POST", "keys/k1/rotate"), "admin");
  assert.equal(role("DELETE", "keys"), undefined);
  assert.equal(role("DELETE", "tasks/t1"), undefined);
  assert.equal(role("POST", "hooks/order"), undefined);
  assert.equal(role("GET", "tasks/t1/claim"), undefined);
  assert.equal(role("POST", "tasks/t1/claim/extra"), undefined);
});
