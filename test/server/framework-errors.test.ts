/**
 * What Fastify's router and Node's HTTP parser refuse before any route runs
 * is answered as problem+json too, never echoing the request: bad
 * percent-encoding, an over-long path id (400, as documented), oversized
 * headers, a malformed request line, and CONNECT (which Node would otherwise
 * answer by closing the socket).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "../support/backends.ts";
import { rawExchange, type RawAnswer } from "../support/raw-http.ts";

const KEY = "fw-key-0123456789abcdefghijkl";
let tf: Awaited<ReturnType<typeof createTaskflow>>;
let port = 0;
let drop: () => Promise<void>;

before(async () => {
  const db = await createTestDatabase({ name: "sqlite" });
  drop = () => db.drop();
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: [KEY], logLevel: "silent", addr: "127.0.0.1:0" },
  });
  tf = await createTaskflow(config);
  port = Number(new URL(await tf.listen()).port);
});

after(async () => {
  await tf?.close();
  await drop?.();
});

function assertProblem(a: RawAnswer, status: number, code: string) {
  assert.equal(a.status, status, `status; got ${a.status} ${a.body}`);
  assert.match(a.headers["content-type"] ?? "", /^application\/problem\+json/);
  const p = JSON.parse(a.body) as { status: number; code: string; detail: string };
  assert.equal(p.status, status);
  assert.equal(p.code, code);
  return p;
}

const get = (path: string, extra = "") =>
  rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n${extra}\r\n`);

void describe("errors before routing", () => {
  test("bad percent-encoding is a 400 problem that does not echo the path", async () => {
    const p = assertProblem(await get("/v1/tasks/%E0%A4%A-marker"), 400, "Validation");
    assert.doesNotMatch(p.detail, /marker|%E0/);
  });

  test("a path id over the router's limit is a 400 problem, not a 414 echoing 10 KB", async () => {
    const a = await get(`/v1/tasks/${"a".repeat(10_000)}`);
    const p = assertProblem(a, 400, "Validation");
    assert.match(p.detail, /longer than 128/);
    assert.ok(a.body.length < 300, `body of ${a.body.length} bytes`);
  });

  test("oversized headers: 431 problem+json", async () => {
    const a = await get("/healthz", `X-Big: ${"b".repeat(20_000)}\r\n`);
    const p = assertProblem(a, 431, "TooLarge");
    assert.doesNotMatch(a.body, /bbbb/);
    assert.match(p.detail, /headers/);
  });

  test("a malformed request line: 400 problem+json", async () => {
    for (const line of [
      "GARBAGE\r\n\r\n",
      "GET /healthz HTTP/9.9\r\n\r\n",
      "G\u0000T / HTTP/1.1\r\n\r\n",
    ]) {
      assertProblem(await rawExchange(port, line), 400, "Validation");
    }
  });

  test("HTTP/1.1 without Host: 400 problem+json (Node's own answer has no body)", async () => {
    const p = assertProblem(
      await rawExchange(port, "GET /healthz HTTP/1.1\r\n\r\n"),
      400,
      "Validation",
    );
    assert.match(p.detail, /Host/);
    const a = await rawExchange(port, "GET /healthz HTTP/1.0\r\n\r\n");
    assert.equal(a.status, 200, "HTTP/1.0 needs none");
  });

  test("CONNECT is answered (400 problem+json), not dropped", async () => {
    const a = await rawExchange(
      port,
      "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    );
    assertProblem(a, 400, "Validation");
  });

  test("the server still serves after all that", async () => {
    const a = await get("/healthz");
    assert.equal(a.status, 200);
  });
});
