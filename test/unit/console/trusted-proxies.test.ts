import assert from "node:assert/strict";
import { test } from "node:test";
import { trustedProxies } from "../../../src/console/trusted-proxies.ts";

test("trusted proxies: addresses and CIDRs, v4-mapped v6 peers, nothing else", () => {
  const ok = trustedProxies(["10.0.0.0/8", "192.168.1.7", "fd00::/8"]);
  assert.equal(ok("10.200.3.4"), true);
  assert.equal(ok("::ffff:10.1.2.3"), true);
  assert.equal(ok("192.168.1.7"), true);
  assert.equal(ok("192.168.1.8"), false);
  assert.equal(ok("11.0.0.1"), false);
  assert.equal(ok("fd12::1"), true);
  assert.equal(ok("fe80::1"), false);
  assert.equal(ok(undefined), false);
  assert.equal(ok("not-an-ip"), false);
  assert.equal(trustedProxies([])("127.0.0.1"), false);
});
