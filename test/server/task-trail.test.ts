/**
 * The audit trail holds 100 % of the changes: a randomized run of assignments
 * (to a user, a group, several users, with joins), claims, releases,
 * completions, complete-and-ends and comments — each by a random actor, so many
 * are refused — is kept in a model of what every answered 2xx changed, and at
 * the end every task's trail (GET /v1/tasks/{id}/events) and every process's
 * (GET /v1/instances/{id}/events) is exactly the model's: each change once, by
 * its actor, in order, nothing for a refused request. On SQLite, PostgreSQL
 * (where assignments and completions are one statement each) and MariaDB.
 *
 * Then the engine's own changes: a `ctx.humanTask` whose `any` policy is met
 * cancels the other task with the engine as its actor and a reason, and its
 * trail is readable per process.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { startTestTaskflow, type TestNode } from "../support/test-taskflow.ts";

const KEY = "trail-key-0123456789abcdefghijklm";
const USERS = ["u1", "u2", "u3", "u4"];
const GROUP = "g";
const MEMBERS = ["u1", "u2"];
const STEPS = Number(process.env.TRAIL_STEPS ?? 160);

/** mulberry32: a small seeded generator, so a failing run can be repeated by its seed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelTask {
  id: string;
  root: string;
  kind: "user" | "group";
  assignee: string;
  status: "open" | "claimed" | "done" | "cancelled";
  claimedBy: string | null;
  /** [type, actor] of each change, in order. */
  events: [string, string | null][];
}

const either = workflow("either", async (ctx) => {
  const r = await ctx.humanTask("sign", {
    assignee: { kind: "users", ids: ["u3", "u4"] },
    policy: "any",
  });
  return r.completedBy;
});

for (const b of backends) {
  void describe(`the audit trail over HTTP on ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let node: TestNode;
    before(async () => {
      node = await startTestTaskflow(
        b,
        KEY,
        {
          maxEventLoopDelay: 0,
          users: ["alice", ...USERS].join(","),
          groups: { [GROUP]: MEMBERS },
        },
        { workflows: [either], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
    });
    after(() => node?.close());
    before(async () => {
      // An assignment that is its own process names a definition that exists.
      for (const processKey of ["trail", "notes"]) {
        const r = await node.call("POST", "/v1/processes", { processKey });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
    });

    void test(`a randomized run of ${STEPS} requests: every change in the trail, once`, async () => {
      const seed = Number(process.env.TRAIL_SEED ?? Date.now() % 1_000_000);
      const rnd = random(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const tasks = new Map<string, ModelTask>();
      const roots: string[] = [];
      const live = () =>
        [...tasks.values()].filter((t) => t.status === "open" || t.status === "claimed");
      const add = (t: any, root: string, by: string) =>
        tasks.set(t.id, {
          id: t.id,
          root,
          kind: t.assignee.kind,
          assignee: t.assignee.id,
          status: "open",
          claimedBy: null,
          events: [["created", by]],
        });
      const assignee = () => {
        const r = rnd();
        if (r < 0.35) return { kind: "user", id: pick(USERS) };
        if (r < 0.7) return { kind: "group", id: GROUP };
        return { kind: "users", ids: [...new Set([pick(USERS), pick(USERS)])] };
      };
      let refused = 0;
      const seen = new Set<number>();
      for (let step = 0; step < STEPS; step++) {
        const actor = pick(USERS);
        const open = live();
        const op = open.length === 0 ? 0 : Math.floor(rnd() * 7);
        let r: { status: number; body: any };
        if (op === 0) {
          // An assignment: a new process, or under one that is still running; sometimes a join.
          const under = roots.length > 0 && rnd() < 0.5 ? pick(roots) : undefined;
          const join = rnd() < 0.3 ? { onAllCompleted: { assignee: assignee() } } : {};
          r = await node.call(
            "POST",
            "/v1/assignments",
            under === undefined
              ? { definitionKey: "trail", assignee: assignee(), ...join }
              : { parentInstanceId: under, assignee: assignee(), ...join },
            actor,
          );
          if (r.status === 201) {
            const root = r.body.task.rootInstanceId as string;
            if (!roots.includes(root)) roots.push(root);
            for (const t of r.body.tasks) add(t, root, actor);
          }
        } else {
          const t = pick(open);
          if (op === 1) {
            r = await node.call("POST", `/v1/tasks/${t.id}/claim`, {}, actor);
            if (r.status === 200) {
              t.status = "claimed";
              t.claimedBy = actor;
              t.events.push(["claimed", actor]);
            }
          } else if (op === 2) {
            r = await node.call("POST", `/v1/tasks/${t.id}/release`, {}, actor);
            if (r.status === 200) {
              t.status = "open";
              t.claimedBy = null;
              t.events.push(["released", actor]);
            }
          } else if (op === 3 || op === 4) {
            const body = rnd() < 0.5 ? { action: "ok", comment: "fine" } : {};
            r = await node.call("POST", `/v1/tasks/${t.id}/complete`, body, actor);
            if (r.status === 200) {
              t.status = "done";
              t.events.push(["completed", actor]);
              // The join (if this was the referral's last task) acts as whoever assigned it.
              const joined = r.body.joined;
              if (joined !== null) for (const j of joined.tasks) add(j, t.root, j.assignedBy);
            }
          } else if (op === 5) {
            r = await node.call(
              "POST",
              `/v1/tasks/${t.id}/comments`,
              { text: `note ${step}` },
              actor,
            );
            if (r.status === 201) t.events.push(["commented", actor]);
          } else {
            if (rnd() < 0.6) continue; // rarer: it ends a whole process
            r = await node.call("POST", `/v1/tasks/${t.id}/complete-and-end`, {}, actor);
            if (r.status === 200) {
              t.status = "done";
              t.events.push(["completed", actor]);
              let n = 0;
              for (const o of live()) {
                if (o.root !== t.root) continue;
                o.status = "cancelled";
                o.events.push(["cancelled", actor]);
                n++;
              }
              assert.equal(r.body.cancelled, n, `seed ${seed}: cancelled`);
            }
          }
        }
        assert.ok(r.status < 500, `seed ${seed}, step ${step}: ${JSON.stringify(r.body)}`);
        if (r.status >= 400) refused++;
        seen.add(op);
      }
      assert.ok(refused > 0 && refused < STEPS, `seed ${seed}: ${refused} of ${STEPS} refused`);
      assert.ok(tasks.size > 10, `seed ${seed}: ${tasks.size} tasks`);

      const trail = async (url: string) => {
        const out: any[] = [];
        let cursor: string | null = null;
        do {
          const page = await node.call("GET", `${url}?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          out.push(...page.body.items);
          cursor = page.body.nextCursor;
        } while (cursor !== null);
        return out;
      };
      let total = 0;
      for (const t of tasks.values()) {
        const events = await trail(`/v1/tasks/${t.id}/events`);
        assert.deepEqual(
          events.map((e) => [e.type, e.actor]),
          t.events,
          `seed ${seed}: the trail of task ${t.id}`,
        );
        const last = events.at(-1);
        assert.equal(last.status, t.status, `seed ${seed}: task ${t.id}'s last status`);
        total += events.length;
      }
      // Per process: the same events, each once, in the order they were written.
      let perProcess = 0;
      for (const root of roots) {
        const events = await trail(`/v1/instances/${root}/events`);
        const ids = events.map((e) => Number(e.id));
        assert.deepEqual(
          ids,
          [...ids].sort((x, y) => x - y),
          `seed ${seed}: order`,
        );
        for (const e of events) assert.equal(tasks.get(e.taskId)?.root, root);
        perProcess += events.length;
      }
      assert.equal(perProcess, total, `seed ${seed}: the processes' trails hold every task's`);
    });

    void test("the engine's own changes: an `any` policy met cancels the other task, with a reason", async () => {
      const run = await node.call("POST", "/v1/workflows/either/runs", { id: `either-${b.name}` });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      let mine: any;
      for (const end = Date.now() + 20_000; mine === undefined && Date.now() < end;) {
        const items = (await node.call("GET", "/v1/tasks?user=u3&limit=200", undefined, "u3")).body
          .items as any[];
        mine = items.find((t) => t.definitionKey === "either");
        await new Promise((res) => setTimeout(res, 25));
      }
      assert.ok(mine, "u3's task");
      assert.equal(
        (await node.call("POST", `/v1/tasks/${mine.id}/complete`, {}, "u3")).status,
        200,
      );
      let events: any[] = [];
      for (const end = Date.now() + 20_000; Date.now() < end;) {
        events = (await node.call("GET", `/v1/instances/${mine.rootInstanceId}/events`)).body.items;
        if (events.some((e) => e.type === "cancelled")) break;
        await new Promise((res) => setTimeout(res, 25));
      }
      const cancelled = events.find((e) => e.type === "cancelled");
      assert.ok(cancelled, JSON.stringify(events));
      assert.equal(cancelled.actor, null);
      assert.equal(cancelled.assignee.id, "u4");
      assert.match(cancelled.reason, /'sign' was decided without it \(policy any\)/);
      assert.deepEqual(events.map((e) => [e.type, e.assignee.id]).sort(), [
        ["cancelled", "u4"],
        ["completed", "u3"],
        ["created", "u3"],
        ["created", "u4"],
      ]);
    });

    void test("a comment: 201 with its event; 400 without text; 404 for another tenant's task", async () => {
      const a = await node.call("POST", "/v1/assignments", {
        definitionKey: "notes",
        assignee: { kind: "user", id: "u1" },
      });
      const id = a.body.task.id as string;
      const c = await node.call(
        "POST",
        `/v1/tasks/${id}/comments`,
        { text: "  see the PDF  " },
        "u2",
      );
      assert.equal(c.status, 201, JSON.stringify(c.body));
      assert.equal(c.body.type, "commented");
      assert.equal(c.body.actor, "u2");
      assert.equal(c.body.comment, "see the PDF");
      assert.equal(
        (await node.call("POST", `/v1/tasks/${id}/comments`, { text: "" }, "u2")).status,
        400,
      );
      assert.equal((await node.call("POST", `/v1/tasks/${id}/comments`, {}, "u2")).status, 400);
      const other = await node.tf.server.inject({
        method: "POST",
        url: `/v1/tasks/${id}/comments`,
        headers: { "x-api-key": KEY, "x-actor-id": "u2", "x-tenant-id": "other" },
        payload: { text: "hi" },
      });
      assert.equal(other.statusCode, 404, other.body);
      const events = await node.call("GET", `/v1/tasks/${id}/events`);
      assert.deepEqual(
        events.body.items.map((e: any) => e.type),
        ["created", "commented"],
      );
      const hidden = await node.tf.server.inject({
        method: "GET",
        url: `/v1/tasks/${id}/events`,
        headers: { "x-api-key": KEY, "x-actor-id": "u2", "x-tenant-id": "other" },
      });
      assert.equal(hidden.statusCode, 404, hidden.body);
    });
  });
}
