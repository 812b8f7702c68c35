/**
 * A request that reaches the server after shutdown began (here: sent on a
 * connection whose first request is still in flight) gets a 503 problem document, not
 * Fastify's own `{"error": …}` body. Over a real socket: inject() bypasses close.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { test } from "node:test";
import { KEY, sampleTask, stubServer } from "./stub-engine.ts";

const get = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nX-Actor-Id: bob\r\n\r\n`;

/**
 * A listening server whose GET /v1/tasks/:id waits, once entered, until `release()`;
 * a raw socket to it whose received bytes collect in `chunks`.
 */
async function gatedServer() {
  let entered!: () => void;
  const inFlight = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const app = await stubServer({
    getTask: async (_ctx, id) => {
      entered();
      await gate;
      return sampleTask({ id });
    },
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  const socket = connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (c: Buffer) => chunks.push(c));
  return { app, inFlight, release, socket, chunks };
}

test("a request arriving while the server closes is 503 problem+json with Retry-After", async () => {
  const { app, inFlight, release, socket, chunks } = await gatedServer();
  const ended = new Promise<void>((r) => socket.on("close", () => r()));
  socket.write(get("/v1/tasks/t1"));
  await inFlight;
  const closed = app.close();
  // The connection is busy, so close() does not reap it: this request is still read.
  await new Promise((r) => setTimeout(r, 20));
  socket.write(get("/v1/tasks/t2"));
  await new Promise((r) => setTimeout(r, 50));
  release();
  await closed;
  await ended;

  const text = Buffer.concat(chunks).toString("utf8");
  const responses = text.split(/(?=HTTP\/1\.1 )/);
  assert.equal(responses.length, 2, text);
  assert.match(responses[0]!, /^HTTP\/1\.1 200 /);
  const second = responses[1]!;
  assert.match(second, /^HTTP\/1\.1 503 /);
  assert.match(second, /content-type: application\/problem\+json/i);
  assert.match(second, /retry-after: 1/i);
  const body = JSON.parse(second.slice(second.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;
  assert.equal(body.code, "Unavailable");
  assert.equal(body.status, 503);
  assert.equal(body.type, "urn:taskflow:problem:Unavailable");
});

test("a connection whose response ends after close began does not hold the close for its keep-alive time", async () => {
  // A keep-alive client that, like undici told "Keep-Alive: timeout=72", keeps its socket.
  const { app, inFlight, release, socket, chunks } = await gatedServer();
  const ended = new Promise<void>((r) => socket.on("close", () => r()));
  socket.write(get("/v1/tasks/t1"));
  await inFlight;
  const began = Date.now();
  const closed = app.close();
  // Node's close() reaped the idle connections already; this one turns idle now.
  await new Promise((r) => setTimeout(r, 20));
  release();
  const within = await Promise.race([
    closed.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 3_000).unref()),
  ]);
  await closed;
  assert.ok(within, `close waited ${Date.now() - began} ms for an idle keep-alive connection`);
  // The server closed the connection after its response: the bytes may still be on their
  // way to this socket when close() resolves, so they are read once it has ended.
  await ended;
  assert.match(Buffer.concat(chunks).toString("utf8"), /^HTTP\/1\.1 200 /);
});
