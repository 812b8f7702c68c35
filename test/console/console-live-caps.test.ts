/**
 * Live-event streams are bounded and share their polls: one login holds at most 6 and
 * one user 12 (then 429 problem+json with Retry-After; other users are not affected, and
 * a closed stream frees its slot), and a list watched by many streams (one user's tabs,
 * a group's members) is read from the engine once per poll, not once per stream. The
 * engine's reads are counted from its request log.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { STREAM_CAPS } from "../../src/console/live-stream-caps.ts";
import {
  cookieHeader,
  logIn,
  startConsoleNode,
  type Browser,
  type ConsoleNode,
} from "./support/console-node.ts";

void describe("live-event streams: caps and one poll per list", () => {
  let node: ConsoleNode;
  let base: string;
  const lines: string[] = [];
  const streams: Response[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    node = await startConsoleNode("sqlite", { logLevel: "info" }, { logger: pino(sink) });
    base = node.taskflow.server.listeningOrigin;
  });
  after(async () => {
    for (const s of streams) await s.body?.cancel().catch(() => undefined);
    await node.close();
  });

  const open = async (b: Browser) => {
    const r = await fetch(`${base}/console/api/events?topic=inbox`, {
      headers: { cookie: cookieHeader(b.jar), accept: "text/event-stream" },
    });
    streams.push(r);
    return r;
  };
  /** The engine's reads of `path` logged since line `from`. */
  const reads = (path: string, from: number) =>
    lines.slice(from).filter((l) => l.includes(`"url":"/v1/${path}"`)).length;

  void it("reads each list once per poll however many streams watch it", async () => {
    // bob: 4 streams over 2 logins; alice: 2. Both are reviewers: 6 streams watch that group.
    const bobs = [await logIn(node, "bob"), await logIn(node, "bob")];
    const alice = await logIn(node, "alice");
    for (const b of [...bobs, ...bobs, alice, alice]) {
      assert.equal((await open(b)).status, 200);
    }
    // Let every stream's first read pass, then count 3 s of polls (1 s apart).
    await new Promise((r) => setTimeout(r, 1500));
    const from = lines.length;
    await new Promise((r) => setTimeout(r, 3000));
    const own = reads("tasks?user=bob&limit=50", from);
    const group = reads("tasks?group=reviewers&limit=50", from);
    // About 3 each; one read per stream per poll would be 12 and 18.
    assert.ok(own >= 1 && own <= 5, `bob's inbox was read ${own} times in 3 s`);
    assert.ok(group >= 1 && group <= 5, `the reviewers' list was read ${group} times in 3 s`);
  });

  void it("refuses a login's 7th stream and a user's 13th (429), frees a closed one's slot", async () => {
    const { perLogin, perUser } = STREAM_CAPS;
    const logins = [
      await logIn(node, "dave"),
      await logIn(node, "dave"),
      await logIn(node, "dave"),
    ];
    const [first, second, third] = logins as [Browser, Browser, Browser];
    // A refused stream (a bad group) takes no slot.
    for (let i = 0; i < perLogin + 1; i++) {
      const bad = await fetch(`${base}/console/api/events?topic=inbox&group=a%20b`, {
        headers: { cookie: cookieHeader(first.jar) },
      });
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
    }
    const held: Response[] = [];
    for (let i = 0; i < perLogin; i++) {
      const r = await open(first);
      assert.equal(r.status, 200);
      held.push(r);
    }
    const overLogin = await open(first);
    assert.equal(overLogin.status, 429);
    assert.match(overLogin.headers.get("content-type") ?? "", /problem\+json/);
    assert.ok(Number(overLogin.headers.get("retry-after")) >= 1);
    assert.match(
      ((await overLogin.json()) as { detail: string }).detail,
      /this login already holds 6/,
    );
    for (let i = perLogin; i < perUser; i++) assert.equal((await open(second)).status, 200);
    const overUser = await open(third);
    assert.equal(overUser.status, 429);
    assert.match(((await overUser.json()) as { detail: string }).detail, /user 'dave'/);
    // Another user is not held back by dave's streams.
    const bob = await logIn(node, "bob");
    assert.equal((await open(bob)).status, 200);

    // A stream the browser closes gives its slot back once the server sees the close.
    await held[0]?.body?.cancel();
    let again = 0;
    for (let i = 0; i < 30 && again !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await open(third);
      again = r.status;
      if (again !== 200) await r.body?.cancel();
    }
    assert.equal(again, 200, "a closed stream's slot was not freed within 3 s");
  });
});
