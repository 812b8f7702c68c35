/**
 * Races through the HTTP API, with real concurrency: two server processes on
 * one database (PostgreSQL, MariaDB; one process for SQLite, which is a
 * single-node store), requests fired at once, split across both nodes. The
 * static directory is on, so group membership is checked as in production
 * (the open directory makes everybody a member of every group).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { JsonClient } from "../../bench/lib/http-client.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";
import { startServer } from "../support/server-process.ts";

const KEY = "race-key-0123456789abcdefghijkl";
const N = 24;

const numbered = (prefix: string) => Array.from({ length: N }, (_, i) => `${prefix}${i}`);
/** Every actor the tests below use; clerk<i> are the members of group clerks, outsider<i> are not. */
const DIRECTORY = {
  WF_USERS: [
    "alice",
    "bob",
    "boss",
    "x",
    "y",
    ...numbered("approver"),
    ...numbered("outsider"),
  ].join(","),
  WF_GROUP_clerks: numbered("clerk").join(","),
};

interface TaskJson {
  id: string;
  status: string;
  claimedBy: string | null;
  assignee: { kind: string; id: string };
}

for (const backend of backends) {
  describe(`HTTP races on ${backend.name}`, await backendTestOptions(backend), () => {
    let drop: () => Promise<void>;
    const servers: Awaited<ReturnType<typeof startServer>>[] = [];
    const clients: JsonClient[] = [];
    const node = (i: number) => clients[i % clients.length]!;

    before(async () => {
      const db = await createTestDatabase(backend);
      drop = () => db.drop();
      const nodes = backend.name === "sqlite" ? 1 : 2;
      for (let i = 0; i < nodes; i++) {
        // The first node migrates alone so the second does not race it here; concurrent migration has its own test.
        const s = await startServer({
          DATABASE_URL: db.url,
          NODE_ENV: "production",
          WF_API_KEYS: KEY,
          LOG_LEVEL: "warn",
          ...DIRECTORY,
        });
        servers.push(s);
        clients.push(new JsonClient("127.0.0.1", s.port, { "x-api-key": KEY }));
      }
    });

    after(async () => {
      clients.forEach((c) => c.close());
      await Promise.all(servers.map((s) => s.stop()));
      await drop?.();
    });

    async function newProcess(actor = "alice") {
      const p = await node(0).expect<{ instanceId: string }>(201, "POST", "/v1/processes", actor, {
        processKey: "race",
      });
      return p.instanceId;
    }

    test(`${N} concurrent completes of one user task: exactly one succeeds, the rest are 409 NotOpen`, async () => {
      const root = await newProcess();
      const a = await node(0).expect<{ task: TaskJson }>(201, "POST", "/v1/assignments", "alice", {
        parentInstanceId: root,
        assignee: { kind: "user", id: "bob" },
      });
      const res = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          node(i).request<{ code?: string }>("POST", `/v1/tasks/${a.task.id}/complete`, "bob", {
            vars: { i },
          }),
        ),
      );
      assert.equal(res.filter((r) => r.status === 200).length, 1);
      const losers = res.filter((r) => r.status !== 200);
      assert.equal(losers.length, N - 1);
      for (const l of losers) assert.deepEqual([l.status, l.body.code], [409, "NotOpen"]);
      const t = await node(1).expect<TaskJson>(200, "GET", `/v1/tasks/${a.task.id}`, "bob");
      assert.equal(t.status, "done");
    });

    test(`${N} members claim one group task at once: exactly one wins, the rest are 409 NotOpen`, async () => {
      const root = await newProcess();
      const a = await node(0).expect<{ task: TaskJson }>(201, "POST", "/v1/assignments", "alice", {
        parentInstanceId: root,
        assignee: { kind: "group", id: "clerks" },
      });
      const res = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          node(i).request<TaskJson & { code?: string }>(
            "POST",
            `/v1/tasks/${a.task.id}/claim`,
            `clerk${i}`,
          ),
        ),
      );
      const winners = res.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
      assert.equal(winners.length, 1);
      for (const r of res.filter((x) => x.status !== 200))
        assert.deepEqual([r.status, r.body.code], [409, "NotOpen"]);
      const t = await node(1).expect<TaskJson>(200, "GET", `/v1/tasks/${a.task.id}`, "alice");
      assert.equal(t.claimedBy, `clerk${winners[0]!.i}`);
    });

    test("a non-member's claim of a group task is 403 Forbidden on every node, and leaves it open", async () => {
      const root = await newProcess();
      const a = await node(0).expect<{ task: TaskJson }>(201, "POST", "/v1/assignments", "alice", {
        parentInstanceId: root,
        assignee: { kind: "group", id: "clerks" },
      });
      for (let i = 0; i < clients.length; i++) {
        const r = await node(i).request<{ code?: string }>(
          "POST",
          `/v1/tasks/${a.task.id}/claim`,
          `outsider${i}`,
        );
        assert.deepEqual([r.status, r.body.code], [403, "Forbidden"]);
      }
      const t = await node(0).expect<TaskJson>(200, "GET", `/v1/tasks/${a.task.id}`, "alice");
      assert.deepEqual([t.status, t.claimedBy], ["open", null]);
      await node(1).expect(200, "POST", `/v1/tasks/${a.task.id}/claim`, "clerk0");
    });

    test(`${N / 2} members and ${N / 2} non-members claim one group task at once: a member wins, every non-member is 403 or, after the win, 409`, async () => {
      const root = await newProcess();
      const a = await node(0).expect<{ task: TaskJson }>(201, "POST", "/v1/assignments", "alice", {
        parentInstanceId: root,
        assignee: { kind: "group", id: "clerks" },
      });
      // Interleaved, so both kinds of claim land on both nodes at once.
      const actors = Array.from({ length: N }, (_, i) =>
        i % 2 === 0 ? `clerk${i}` : `outsider${i}`,
      );
      const res = await Promise.all(
        actors.map((actor, i) =>
          node(i).request<{ code?: string }>("POST", `/v1/tasks/${a.task.id}/claim`, actor),
        ),
      );
      const got = res.map((r, i) => ({ actor: actors[i]!, status: r.status, code: r.body.code }));
      // State before permission (domain/task.ts): a non-member who reads the task claimed is
      // told it is not open, as everyone is; one who reads it open is told it is not theirs.
      for (const g of got.filter((x) => x.actor.startsWith("outsider"))) {
        const expected = g.status === 403 ? [403, "Forbidden"] : [409, "NotOpen"];
        assert.deepEqual([g.status, g.code], expected, g.actor);
      }
      const members = got.filter((x) => x.actor.startsWith("clerk"));
      const winners = members.filter((x) => x.status === 200);
      assert.equal(winners.length, 1, JSON.stringify(got));
      for (const g of members.filter((x) => x.status !== 200))
        assert.deepEqual([g.status, g.code], [409, "NotOpen"], g.actor);
      const t = await node(1).expect<TaskJson>(200, "GET", `/v1/tasks/${a.task.id}`, "alice");
      assert.deepEqual([t.status, t.claimedBy], ["claimed", winners[0]!.actor]);
    });

    test(`join race: ${N} parallel approvals completing at once perform onAllCompleted exactly once (5 rounds)`, async () => {
      for (let round = 0; round < 5; round++) {
        const root = await newProcess();
        const ids = Array.from({ length: N }, (_, i) => `approver${i}`);
        const a = await node(0).expect<{ instanceId: string; tasks: TaskJson[] }>(
          201,
          "POST",
          "/v1/assignments",
          "alice",
          {
            parentInstanceId: root,
            assignee: { kind: "users", ids },
            onAllCompleted: { assignee: { kind: "user", id: "boss" } },
          },
        );
        assert.equal(a.tasks.length, N);
        const res = await Promise.all(
          a.tasks.map((t, i) =>
            node(i).expect<{ joined: { instanceId: string } | null }>(
              200,
              "POST",
              `/v1/tasks/${t.id}/complete`,
              t.assignee.id,
              {},
            ),
          ),
        );
        assert.equal(res.filter((r) => r.joined).length, 1, `round ${round}: the join fired once`);
        const tree = await node(1).expect<{ children: { id: string; tasks: TaskJson[] }[] }>(
          200,
          "GET",
          `/v1/instances/${root}`,
          "alice",
        );
        assert.equal(
          tree.children.length,
          2,
          "the original referral and exactly one joined referral",
        );
        const joined = tree.children.find((c) => c.id !== a.instanceId)!;
        assert.deepEqual(
          joined.tasks.map((t) => t.assignee),
          [{ kind: "user", id: "boss" }],
        );
        const c = await node(0).expect<{ allCompleted: boolean; done: number }>(
          200,
          "GET",
          `/v1/instances/${a.instanceId}/completion`,
          "alice",
        );
        assert.deepEqual([c.allCompleted, c.done], [true, N]);
      }
    });

    test("complete-and-end racing a completion in the same tree: the tree ends consistent", async () => {
      const root = await newProcess();
      const a = await node(0).expect<{ tasks: TaskJson[] }>(
        201,
        "POST",
        "/v1/assignments",
        "alice",
        {
          parentInstanceId: root,
          assignee: { kind: "users", ids: ["x", "y"] },
          onAllCompleted: { assignee: { kind: "user", id: "boss" } },
        },
      );
      const [x, y] = a.tasks as [TaskJson, TaskJson];
      const [end, other] = await Promise.all([
        node(0).request("POST", `/v1/tasks/${x.id}/complete-and-end`, "x", {}),
        node(1).request<{ code?: string }>("POST", `/v1/tasks/${y.id}/complete`, "y", {}),
      ]);
      assert.equal(end.status, 200);
      // Either y completed first (then end cancels nothing and the join fired into a tree that is now closed)
      // or the end came first and y is cancelled → 409 NotOpen. Never both open, never a 500.
      assert.ok(
        other.status === 200 || (other.status === 409 && other.body.code === "NotOpen"),
        `got ${other.status}`,
      );
      const tree = await node(1).expect<{
        status: string;
        children: { status: string; tasks: TaskJson[] }[];
      }>(200, "GET", `/v1/instances/${root}`, "alice");
      assert.equal(tree.status, "completed");
      for (const ch of tree.children) {
        assert.equal(ch.status, "completed");
        for (const t of ch.tasks)
          assert.ok(t.status === "done" || t.status === "cancelled", `task left ${t.status}`);
      }
    });
  });
}
