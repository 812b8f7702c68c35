/** `taskflow health` asks an every-interface address on its loopback, IPv6 in brackets (db set: test/unit may not import src/cli). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { healthUrl } from "../../src/cli/health-check.ts";

void test("health URL: loopback for every-interface addresses, brackets for IPv6, /readyz with --ready", () => {
  assert.equal(healthUrl({ host: "0.0.0.0", port: 8081 }, false), "http://127.0.0.1:8081/healthz");
  assert.equal(healthUrl({ host: "::", port: 8081 }, false), "http://[::1]:8081/healthz");
  assert.equal(healthUrl({ host: "fd00::5", port: 9 }, true), "http://[fd00::5]:9/readyz");
  assert.equal(healthUrl({ host: "10.0.0.5", port: 80 }, true), "http://10.0.0.5:80/readyz");
});
