/**
 * GET /console/api/events over a real connection: an inbox stream sends "inbox" when a
 * task reaches the user, a revoked login ends its stream, runs are for operators only,
 * and an unknown topic is a 400 problem.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CONTENT_SECURITY_POLICY } from "../../src/console/security-headers.ts";
import { cookieHeader, logIn, startConsoleNode, type ConsoleNode } from "./support/console-node.ts";

/** Reads the stream until `event: <name>` arrives; the whole text read so far otherwise. */
async function nextEvent(
  body: ReadableStream<Uint8Array>,
  name: string,
  ms: number,
): Promise<{ found: boolean; ended: boolean; text: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now())),
      ]);
      if (chunk === null) break;
      if (chunk.done) return { found: false, ended: true, text };
      text += decoder.decode(chunk.value);
      if (text.includes(`event: ${name}\n`)) return { found: true, ended: false, text };
    }
    return { found: false, ended: false, text };
  } finally {
    reader.releaseLock();
  }
}

void describe("console live events", () => {
  let node: ConsoleNode;
  let base: string;
  before(async () => {
    node = await startConsoleNode("sqlite");
    base = node.taskflow.server.listeningOrigin;
    const r = await node.engine({
      method: "POST",
      url: "/v1/definitions/live-flow/publish",
      payload: {
        key: "live-flow",
        name: "Live flow",
        start: "review",
        states: {
          review: { type: "userTask", title: "Review", assignee: { users: ["bob"] }, next: "done" },
          done: { type: "end" },
        },
      },
    });
    assert.equal(r.statusCode, 201, r.body);
  });
  after(() => node.close());

  const open = (jar: Record<string, string>, topic: string) =>
    fetch(`${base}/console/api/events?topic=${topic}`, {
      headers: { cookie: cookieHeader(jar), accept: "text/event-stream" },
    });

  void it("sends 'inbox' when a task reaches the user, within about a poll", async () => {
    const bob = await logIn(node, "bob");
    const stream = await open(bob.jar, "inbox");
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get("content-type") ?? "", /^text\/event-stream/);
    // The hijacked stream carries the headers of every /console answer too.
    assert.equal(stream.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
    assert.equal(stream.headers.get("x-content-type-options"), "nosniff");
    assert.equal(stream.headers.get("referrer-policy"), "same-origin");
    assert.equal(stream.headers.get("cache-control"), "no-store");
    assert.ok(stream.body);
    // Nothing changed yet: no event in the first 1.5 s.
    const quiet = await nextEvent(stream.body, "inbox", 1500);
    assert.equal(quiet.found, false, quiet.text);
    const started = await node.engine({
      method: "POST",
      url: "/v1/processes",
      payload: { processKey: "live-flow" },
    });
    assert.equal(started.statusCode, 201, started.body);
    const changed = await nextEvent(stream.body, "inbox", 5000);
    assert.equal(changed.found, true, `no inbox event: ${changed.text}`);
    await stream.body.cancel();
  });

  void it("sees a change made just after the stream opened (its baseline is read at once)", async () => {
    const bob = await logIn(node, "bob");
    const stream = await open(bob.jar, "inbox");
    assert.ok(stream.body);
    try {
      // Give the baseline's read a moment (it is immediate), far less than a poll's 1 s.
      await new Promise((r) => setTimeout(r, 250));
      const started = await node.engine({
        method: "POST",
        url: "/v1/processes",
        payload: { processKey: "live-flow" },
      });
      assert.equal(started.statusCode, 201, started.body);
      const changed = await nextEvent(stream.body, "inbox", 5000);
      assert.equal(changed.found, true, `the change was taken as the baseline: ${changed.text}`);
    } finally {
      await stream.body.cancel();
    }
  });

  void it("ends the stream when the login is revoked", async () => {
    const bob = await logIn(node, "bob");
    const stream = await open(bob.jar, "inbox");
    assert.ok(stream.body);
    const out = await node.call({
      method: "POST",
      url: "/console/api/auth/logout",
      headers: bob.write(),
    });
    assert.equal(out.statusCode, 204);
    const after = await nextEvent(stream.body, "never", 5000);
    assert.equal(after.ended, true, "the stream outlived its login");
  });

  void it("refuses runs to a plain user (403) and an unknown topic (400), as problems", async () => {
    const bob = await logIn(node, "bob");
    const runs = await open(bob.jar, "runs");
    assert.equal(runs.status, 403);
    assert.equal((await open(bob.jar, "fences")).status, 403);
    assert.match(runs.headers.get("content-type") ?? "", /problem\+json/);
    const bad = await open(bob.jar, "everything");
    assert.equal(bad.status, 400);
    const anonymous = await fetch(`${base}/console/api/events?topic=inbox`);
    assert.equal(anonymous.status, 401);
    const carol = await logIn(node, "carol");
    const operator = await open(carol.jar, "runs");
    assert.equal(operator.status, 200);
    await operator.body?.cancel();
  });
});

void it("a node with an open stream still closes at once (the stream ends first)", async () => {
  const node = await startConsoleNode("sqlite");
  let stream: Response | undefined;
  try {
    const bob = await logIn(node, "bob");
    stream = await fetch(`${node.taskflow.server.listeningOrigin}/console/api/events?topic=inbox`, {
      headers: { cookie: cookieHeader(bob.jar) },
    });
    assert.equal(stream.status, 200);
    const started = Date.now();
    const closed = await Promise.race([
      node.taskflow.close().then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 10_000)),
    ]);
    assert.equal(closed, true, "the node did not close within 10 s with a stream open");
    assert.ok(Date.now() - started < 5000, `closing took ${Date.now() - started} ms`);
  } finally {
    // When the server did not end the stream, the client does, so the close
    // above finishes and this test fails by its assertion, not by a hang.
    await stream?.body?.cancel().catch(() => undefined);
    await node.close().catch(() => undefined);
  }
});
