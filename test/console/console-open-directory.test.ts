/**
 * The Console over the open directory (no WF_USERS, no groups: the quick start's): a
 * group's tasks read through the Console as over REST with X-Actor-Id (the open directory
 * cannot tell members, so it refuses no one), and /session says the directory is open, for
 * the pages to tell how roles are given; a group tab's live stream (`&group=`) follows
 * its list. A static directory still refuses a non-member, on the list and the stream.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  cookieHeader,
  logIn,
  startConsoleNode,
  type Browser,
  type ConsoleNode,
} from "./support/console-node.ts";

interface Page {
  items: { id: string; assignee: { kind: string; id: string } }[];
}

async function groupTask(node: ConsoleNode, group: string): Promise<string> {
  const started = await node.engine({
    method: "POST",
    url: "/v1/processes",
    payload: { processKey: "stock" },
  });
  assert.equal(started.statusCode, 201, started.body);
  const assigned = await node.engine({
    method: "POST",
    url: "/v1/assignments",
    payload: {
      parentInstanceId: started.json<{ instanceId: string }>().instanceId,
      assignee: { kind: "group", id: group },
    },
  });
  assert.equal(assigned.statusCode, 201, assigned.body);
  return assigned.json<{ task: { id: string } }>().task.id;
}

const events = (node: ConsoleNode, b: Browser, query: string) =>
  fetch(`${node.taskflow.server.listeningOrigin}/console/api/events?${query}`, {
    headers: { cookie: cookieHeader(b.jar), accept: "text/event-stream" },
  });

/** True once the stream's text holds `event: <name>`, false after `ms`. */
async function sawEvent(body: ReadableStream<Uint8Array>, name: string, ms: number) {
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
      if (chunk === null || chunk.done) return false;
      text += decoder.decode(chunk.value);
      if (text.includes(`event: ${name}\n`)) return true;
    }
    return false;
  } finally {
    reader.releaseLock();
  }
}

void describe("the Console over the open directory", () => {
  let node: ConsoleNode;
  before(async () => {
    node = await startConsoleNode("sqlite", { users: [], groups: {} });
  });
  after(() => node.close());

  void it("reads a group's tasks as REST does, and /session names the open directory", async () => {
    const taskId = await groupTask(node, "warehouse");
    const rest = await node.engine(
      { url: "/v1/tasks?group=warehouse", headers: { "x-actor-id": "zoe" } },
      "zoe",
    );
    assert.equal(rest.statusCode, 200, rest.body);
    assert.deepEqual(
      rest.json<Page>().items.map((t) => t.id),
      [taskId],
    );

    const zoe = await logIn(node, "zoe");
    const viaConsole = await node.call({
      url: "/console/api/engine/tasks?group=warehouse",
      headers: zoe.read(),
    });
    assert.equal(viaConsole.statusCode, 200, viaConsole.body);
    assert.deepEqual(
      viaConsole.json<Page>().items.map((t) => t.id),
      [taskId],
    );
    // Another user's list stays an operator's, whatever the directory.
    const other = await node.call({
      url: "/console/api/engine/tasks?user=alice",
      headers: zoe.read(),
    });
    assert.equal(other.statusCode, 403, other.body);

    const session = await node.call({ url: "/console/api/session", headers: zoe.read() });
    assert.equal(session.statusCode, 200, session.body);
    const s = session.json<{ roles: string[]; directory: string; groups: string[] }>();
    assert.deepEqual([s.roles, s.directory, s.groups], [["user"], "open", []]);
  });

  void it("a group tab's stream tells when a task reaches the group", async () => {
    const yann = await logIn(node, "yann");
    const stream = await events(node, yann, "topic=inbox&group=docks");
    assert.equal(stream.status, 200);
    assert.ok(stream.body);
    try {
      // Its baseline first (a poll), then the change.
      assert.equal(await sawEvent(stream.body, "inbox", 1500), false);
      await groupTask(node, "docks");
      assert.equal(await sawEvent(stream.body, "inbox", 5000), true, "no event for the group");
    } finally {
      await stream.body.cancel();
    }
    const bad = await events(node, yann, "topic=inbox&group=a%20b");
    assert.equal(bad.status, 400);
  });
});

void it("a static directory still refuses a group's tasks to a non-member (403)", async () => {
  const node = await startConsoleNode("sqlite");
  try {
    await groupTask(node, "reviewers");
    const carol = await logIn(node, "carol");
    const bob = await logIn(node, "bob");
    const member = await node.call({
      url: "/console/api/engine/tasks?group=reviewers",
      headers: bob.read(),
    });
    assert.equal(member.statusCode, 200, member.body);
    const refused = await node.call({
      url: "/console/api/engine/tasks?group=ops",
      headers: bob.read(),
    });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.match(refused.json<{ detail: string }>().detail, /only members of group 'ops'/);
    const session = await node.call({ url: "/console/api/session", headers: carol.read() });
    assert.equal(session.json<{ directory: string }>().directory, "static");
    const notMine = await events(node, bob, "topic=inbox&group=ops");
    assert.equal(notMine.status, 403);
    const mine = await events(node, bob, "topic=inbox&group=reviewers");
    assert.equal(mine.status, 200);
    await mine.body?.cancel();
  } finally {
    await node.close();
  }
});
