/**
 * The fault proxy itself, against a local echo server: each fault does what
 * the chaos scenarios rely on it to do.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.ts";

const echo = createServer((s) => s.pipe(s));
let proxy: FaultProxy;

before(async () => {
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  const addr = echo.address();
  proxy = await startFaultProxy("127.0.0.1", typeof addr === "object" && addr ? addr.port : 0);
});
after(async () => {
  await proxy.close();
  echo.close();
});

async function open(): Promise<Socket> {
  const s = connect(proxy.port, "127.0.0.1");
  await once(s, "connect");
  return s;
}

async function roundTrip(s: Socket, text: string): Promise<number> {
  const t0 = Date.now();
  s.write(text);
  const [chunk] = (await once(s, "data")) as [Buffer];
  assert.equal(chunk.toString(), text);
  return Date.now() - t0;
}

test("passes bytes both ways, and adds the latency it is told to", async () => {
  const s = await open();
  assert.ok((await roundTrip(s, "a")) < 80);
  proxy.latency(60);
  assert.ok((await roundTrip(s, "b")) >= 110, "60 ms each way");
  proxy.latency(0);
  s.destroy();
});

test("cut() closes every open connection; new ones still work", async () => {
  const s = await open();
  await roundTrip(s, "x");
  const closed = once(s, "close");
  proxy.cut();
  await closed;
  const s2 = await open();
  await roundTrip(s2, "y");
  s2.destroy();
});

test("a black hole holds bytes until it ends, then delivers them in order", async () => {
  const s = await open();
  proxy.blackhole(true);
  s.write("1");
  s.write("2");
  let got = "";
  s.on("data", (c: Buffer) => (got += c.toString()));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(got, "", "nothing crosses while black-holed");
  proxy.blackhole(false);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(got, "12");
  s.destroy();
});

test("refuse(true) closes new connections at once", async () => {
  proxy.refuse(true);
  const s = connect(proxy.port, "127.0.0.1");
  await once(s, "close");
  proxy.refuse(false);
  const s2 = await open();
  await roundTrip(s2, "ok");
  s2.destroy();
});
