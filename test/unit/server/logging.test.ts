import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { pino } from "pino";
import { withRedaction } from "../../../src/server/hooks/logging.ts";
import { KEY, sampleTask, stubServer } from "./stub-engine.ts";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

void test("the API key never appears in the logs (right key, wrong key, 500)", async () => {
  const { lines, stream } = capture();
  const app = await stubServer(
    {
      getTask: () => Promise.resolve(sampleTask()),
      claim: () => Promise.reject(new Error("boom")),
    },
    { logTo: stream },
  );
  await app.inject({ url: "/v1/tasks/t1", headers: { "x-api-key": KEY } });
  await app.inject({ url: "/v1/tasks/t1", headers: { "x-api-key": "wrong-key-value" } });
  await app.inject({
    method: "POST",
    url: "/v1/tasks/t1/claim",
    headers: { "x-api-key": KEY, "x-actor-id": "bob" },
  });
  // Someone logging the headers later must still not leak it.
  app.log.info({ req: { headers: { "x-api-key": KEY } } }, "serialized request");
  app.log.info({ headers: { "x-api-key": KEY } }, "explicit headers");
  await app.close();
  const all = lines.join("\n");
  assert.ok(lines.length > 5, "logs were captured");
  assert.ok(!all.includes(KEY), "configured key not logged");
  assert.ok(!all.includes("wrong-key-value"), "rejected key not logged");
  assert.ok(all.includes("[redacted]"), "explicit header logged as [redacted]");
  assert.ok(all.includes("rejected API key"));
});

void test("a caller's own logger gets the redaction too", () => {
  const { lines, stream } = capture();
  withRedaction(pino(stream)).info({ headers: { "x-api-key": "k-123" } }, "x");
  assert.ok(!lines.join("").includes("k-123"));
});

void test("request ids: a well-formed X-Request-Id is used, echoed and logged; otherwise generated", async () => {
  const { lines, stream } = capture();
  const app = await stubServer({}, { logTo: stream });
  const a = await app.inject({ url: "/healthz", headers: { "x-request-id": "abc-123" } });
  assert.equal(a.headers["x-request-id"], "abc-123");
  assert.ok(lines.some((l) => JSON.parse(l).reqId === "abc-123"));
  const b = await app.inject({ url: "/healthz", headers: { "x-request-id": "bad id\u0001" } });
  assert.match(b.headers["x-request-id"] as string, /^[0-9a-f-]{36}$/);
  await app.close();
});
