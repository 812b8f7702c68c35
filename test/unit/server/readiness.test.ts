/**
 * GET /readyz over stub checks: 200 with every check "ok"; 503 problem+json
 * with Retry-After while one fails or does not answer in time; no key; and a
 * hanging check is not started again by every probe. (Over a real store:
 * test/server/readiness.test.ts.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { UnavailableError } from "../../../src/domain/unavailable.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import type { ReadinessChecks } from "../../../src/server/routes/readiness-route.ts";
import { stubEngine, testConfig } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

async function serverWith(readiness: ReadinessChecks) {
  const app = buildServer({
    engine: stubEngine(),
    config: testConfig(),
    readiness,
    ...serverAdapters(testConfig()),
  });
  await app.ready();
  return app;
}

const ok = () => Promise.resolve();
const down = () => Promise.reject(new UnavailableError("the database is unavailable"));

test("200 with every check ok, without an API key", async () => {
  const app = await serverWith({ store: ok });
  const r = await app.inject({ url: "/readyz" });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { status: "ok", checks: { store: "ok" } });
  await app.close();
});

test("503 problem+json with Retry-After while a check fails; /healthz stays 200", async () => {
  const app = await serverWith({ store: down, other: ok });
  const r = await app.inject({ url: "/readyz" });
  assert.equal(r.statusCode, 503);
  assert.match(String(r.headers["content-type"]), /^application\/problem\+json/);
  assert.ok(Number(r.headers["retry-after"]) > 0);
  const p = r.json<{ code: string; detail: string }>();
  assert.equal(p.code, "Unavailable");
  assert.equal(p.detail, "not ready: store unavailable");
  assert.equal((await app.inject({ url: "/healthz" })).statusCode, 200);
  await app.close();
});

test("a check that hangs is 503 after the timeout, and probes share its one round", async () => {
  let started = 0;
  const hang = () => {
    started++;
    return new Promise<void>(() => undefined);
  };
  const app = await serverWith({ store: hang });
  const t0 = Date.now();
  const rs = await Promise.all([1, 2, 3].map(() => app.inject({ url: "/readyz" })));
  const took = Date.now() - t0;
  for (const r of rs) assert.equal(r.statusCode, 503);
  assert.match(rs[0]!.json<{ detail: string }>().detail, /store no answer within 1500 ms/);
  assert.ok(took >= 1_400 && took < 3_000, `answered after ${took} ms`);
  assert.equal(started, 1, "one round in flight, not one per probe");
  await app.close();
});
