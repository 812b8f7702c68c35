/** The client address the Console's login budgets count (client-address.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FastifyRequest } from "fastify";
import { clientAddress } from "../../../src/console/client-address.ts";
import { trustedProxies } from "../../../src/console/trusted-proxies.ts";

const of = (peer: string, forwarded?: string | string[]) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
  }) as unknown as FastifyRequest;

test("behind trusted proxies: the first untrusted address from the right; otherwise the peer", () => {
  const address = clientAddress(trustedProxies(["10.0.0.0/8", "fd00::/8"]));
  assert.equal(address(of("198.51.100.1", "203.0.113.9")), "198.51.100.1", "untrusted peer");
  assert.equal(address(of("10.0.0.1", "203.0.113.9")), "203.0.113.9");
  assert.equal(address(of("::ffff:10.0.0.1", "1.1.1.1, 203.0.113.9")), "203.0.113.9");
  assert.equal(address(of("10.0.0.1", "203.0.113.9, 10.2.2.2")), "203.0.113.9", "a chain");
  assert.equal(address(of("10.0.0.1", ["203.0.113.9", "10.2.2.2"])), "203.0.113.9");
  assert.equal(address(of("10.0.0.1", "203.0.113.9:4711")), "203.0.113.9", "with a port");
  assert.equal(address(of("10.0.0.1")), "10.0.0.1", "no header: the proxy itself");
  assert.equal(address(of("10.0.0.1", "garbage")), "10.0.0.1", "not an address");
  assert.equal(address(of("10.0.0.1", "10.3.3.3")), "10.3.3.3", "only proxies: the leftmost");
});

test("an IPv6 client counts by its /64", () => {
  const address = clientAddress(trustedProxies(["10.0.0.1"]));
  assert.equal(address(of("2001:db8:1:2:3:4:5:6")), "2001:db8:1:2::/64");
  assert.equal(address(of("2001:db8:1:2::9")), "2001:db8:1:2::/64");
  assert.equal(address(of("10.0.0.1", "[2001:DB8:0:0::1]:443")), "2001:db8:0:0::/64");
  assert.equal(address(of("::1")), "0:0:0:0::/64");
});
