import assert from "node:assert/strict";
import { test } from "node:test";
import type { FastifyRequest } from "fastify";
import { originRefusal } from "../../../src/console/request-origin.ts";

const req = (method: string, headers: Record<string, string>) =>
  ({ method, headers: { host: "console.test", ...headers } }) as unknown as FastifyRequest;

test("origin check: reads pass; a mutation needs a same-origin Origin or Sec-Fetch-Site", () => {
  assert.equal(originRefusal(req("GET", {}), []), null);
  assert.equal(originRefusal(req("POST", { origin: "https://console.test" }), []), null);
  assert.equal(originRefusal(req("POST", { "sec-fetch-site": "same-origin" }), []), null);
  const refused: Record<string, string>[] = [
    {},
    { origin: "https://evil.test" },
    { origin: "null" },
    { origin: "https://console.test.evil.test" },
    { origin: "https://console.test", "sec-fetch-site": "same-site" },
    { "sec-fetch-site": "cross-site" },
  ];
  for (const headers of refused) {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const r = originRefusal(req(method, headers), []);
      assert.equal(r?.code, "Forbidden", `${method} ${JSON.stringify(headers)}`);
    }
  }
});

test("origin check with WF_CONSOLE_ORIGINS: only the listed origins, whatever the Host", () => {
  const allowed = ["https://console.example.com"];
  const ok = req("POST", { origin: "https://console.example.com", host: "10.0.0.5:8081" });
  assert.equal(originRefusal(ok, allowed), null);
  const sameHost = req("POST", { origin: "https://console.test" });
  assert.equal(originRefusal(sameHost, allowed)?.code, "Forbidden");
});
