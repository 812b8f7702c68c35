/**
 * The list filters over HTTP on every backend: GET /v1/tasks?status=,
 * GET /v1/runs?startedBy=&createdAfter=&createdBefore=, GET /v1/processes
 * with a creation window. The real engine, store and routes; a settable clock
 * (the engine's and the runs'), so every time is known. No worker: runs stay
 * pending, which is all a list needs. Directory: alice, bob, carol, dave;
 * group clerks = bob, carol. One node on each backend, then the two-node
 * deployments of test/support/deployment.ts (their database and config, the
 * nodes assembled here for the shared settable clock), requests round-robin.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { createDirectory } from "../../src/adapters/directory/create-directory.ts";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import type { ConfigOverrides } from "../../src/config/config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { coordinationFor } from "../../src/composition/coordination-for.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../src/engine/durable/runs-api.ts";
import { HumanTaskEngine } from "../../src/engine/human-tasks/human-task-engine.ts";
import { buildServer } from "../../src/server/build-server.ts";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";
import {
  deployments,
  roundRobin,
  type DeploymentKind,
  type PreparedDeployment,
} from "../support/deployment.ts";

const KEY = "filters-key-0123456789abcdefghij";
/** 2027-01-15T10:00:00.000Z */
const T0 = Date.UTC(2027, 0, 15, 10);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Json = Record<string, any>;

const noop = workflow("order", () => Promise.resolve("ok"));
const refund = workflow("refund", () => Promise.resolve("ok"));

type Variant = Pick<DeploymentKind, "name" | "nodeCount" | "testOptions"> & {
  prepare(overrides: ConfigOverrides): Promise<PreparedDeployment>;
};

const oneNode: Variant[] = backends.map((b) => ({
  name: b.name as DeploymentKind["name"],
  nodeCount: 1,
  testOptions: () => backendTestOptions(b),
  async prepare(overrides) {
    const db = await createTestDatabase(b);
    const config = loadConfig({ env: {}, overrides: { ...overrides, databaseUrl: db.url } });
    return { config, cleanUp: () => db.drop() };
  },
}));

for (const b of [...oneNode, ...deployments.filter((k) => k.nodeCount > 1)]) {
  void describe(`list filters over HTTP: ${b.name}`, async () => {
    const options = await b.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    const nodes: { server: FastifyInstance; database: Database; coordination: Coordination }[] = [];
    let inject: FastifyInstance["inject"];
    let prepared: PreparedDeployment;
    const clock = { t: T0, now: () => clock.t };

    before(async () => {
      prepared = await b.prepare({
        apiKeys: [KEY],
        logLevel: "silent",
        users: "alice,dave",
        groups: { clerks: ["bob", "carol"] },
        // Not under test: on a busy test machine the loop lags and /v1 would be shed.
        maxEventLoopDelay: 0,
      });
      const { config } = prepared;
      for (let i = 0; i < b.nodeCount; i++) {
        const database = openDatabase(config.databaseUrl);
        await database.migrate();
        const coordination = coordinationFor(config, database);
        const directory = createDirectory(config);
        const engine = new HumanTaskEngine({ store: database.tasks, directory, clock });
        const runs = new DurableRuns(
          database.runs,
          new WorkflowRegistry([noop, refund]),
          undefined,
          clock.now,
        );
        const server = buildServer({ engine, config, runs, directory, coordination });
        await server.ready();
        nodes.push({ server, database, coordination });
      }
      inject = roundRobin(nodes.map((n) => n.server)) as FastifyInstance["inject"];
    });

    after(async () => {
      for (const n of nodes) {
        await n.server.close();
        await n.coordination.close();
        await n.database.close();
      }
      await prepared?.cleanUp();
    });

    async function call(actor: string, method: "GET" | "POST", url: string, body?: unknown) {
      clock.t += 1; // every write at its own millisecond: ids and times in call order
      const r = await inject({
        method,
        url,
        headers: { "x-api-key": KEY, "x-actor-id": actor },
        ...(body !== undefined ? { payload: body as object } : {}),
      });
      return { status: r.statusCode, body: r.json<Json>() };
    }
    const ok = async (actor: string, method: "GET" | "POST", url: string, body?: unknown) => {
      const r = await call(actor, method, url, body);
      assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const bad = async (url: string, detail: RegExp, actor = "bob") => {
      const r = await call(actor, "GET", url);
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "Validation");
      assert.match(r.body.detail, detail, url);
    };

    /** One task, in its own referral under `root`, assigned by alice. */
    const task = async (root: string, kind: "user" | "group", id: string) =>
      (
        await ok("alice", "POST", "/v1/assignments", {
          parentInstanceId: root,
          assignee: { kind, id },
        })
      ).task.id as string;

    /** Every page of a list, following nextCursor; returns the ids and the cursors. */
    async function pages(actor: string, url: string) {
      const ids: string[][] = [];
      const cursors: string[] = [];
      let cursor: string | null = null;
      do {
        const sep = url.includes("?") ? "&" : "?";
        const page: Json = await ok(
          actor,
          "GET",
          cursor === null ? url : `${url}${sep}cursor=${cursor}`,
        );
        ids.push(page.items.map((t: Json) => t.id ?? t.runId));
        cursor = page.nextCursor as string | null;
        if (cursor !== null) cursors.push(cursor);
      } while (cursor !== null);
      return { ids, cursors };
    }
    const list = async (actor: string, url: string) => (await pages(actor, url)).ids.flat();

    void describe("GET /v1/tasks?status=", () => {
      const t: Record<string, string> = {};
      const at: Record<string, number> = {};

      before(async () => {
        const p = (await ok("alice", "POST", "/v1/processes", { processKey: "leave" })).instanceId;
        t.u1 = await task(p, "user", "bob");
        t.u2 = await task(p, "user", "bob");
        t.u3 = await task(p, "user", "bob");
        t.g1 = await task(p, "group", "clerks");
        t.g2 = await task(p, "group", "clerks");
        t.g3 = await task(p, "group", "clerks");
        t.c1 = await task(p, "user", "carol");
        t.g4 = await task(p, "group", "clerks");
        clock.t = T0 + HOUR;
        await ok("bob", "POST", `/v1/tasks/${t.u2}/complete`);
        at.u2 = clock.t;
        await ok("bob", "POST", `/v1/tasks/${t.g1}/claim`);
        clock.t = T0 + 2 * HOUR;
        await ok("bob", "POST", `/v1/tasks/${t.g1}/complete`);
        await ok("carol", "POST", `/v1/tasks/${t.g2}/claim`);
        await ok("bob", "POST", `/v1/tasks/${t.g3}/claim`);
        clock.t = T0 + 3 * HOUR;
        await ok("bob", "POST", `/v1/tasks/${t.u1}/complete`);
        // A second tree, ended by carol: its other tasks are cancelled at one and the same time.
        const q = (await ok("alice", "POST", "/v1/processes", { processKey: "leave" })).instanceId;
        t.q1 = await task(q, "user", "bob");
        t.q2 = await task(q, "group", "clerks");
        t.q3 = await task(q, "user", "carol");
        clock.t = T0 + 4 * HOUR;
        const ended = await ok("carol", "POST", `/v1/tasks/${t.q3}/complete-and-end`);
        assert.equal(ended.cancelled, 2);
      });

      void test("default and status=open: the inbox as before (own, groups', claimed by the user)", async () => {
        const inbox = [t.u3, t.g3, t.g4];
        assert.deepEqual(await list("bob", "/v1/tasks"), inbox);
        assert.deepEqual(await list("bob", "/v1/tasks?status=open"), inbox);
        assert.deepEqual(await list("alice", "/v1/tasks?user=bob&status=open"), inbox);
        assert.deepEqual(await list("bob", "/v1/tasks?group=clerks"), [t.g4]);
        assert.deepEqual(await list("bob", "/v1/tasks?group=clerks&status=open"), [t.g4]);
        assert.deepEqual(await list("carol", "/v1/tasks"), [t.g2, t.c1, t.g4]);
      });

      void test("status=claimed: the user's claimed tasks; a group's, by any member", async () => {
        assert.deepEqual(await list("bob", "/v1/tasks?status=claimed"), [t.g3]);
        assert.deepEqual(await list("bob", "/v1/tasks?user=carol&status=claimed"), [t.g2]);
        assert.deepEqual(await list("dave", "/v1/tasks?status=claimed"), []);
        assert.deepEqual(await list("bob", "/v1/tasks?group=clerks&status=claimed"), [t.g2, t.g3]);
      });

      void test("status=completed: what the user completed, newest first; a group's done tasks", async () => {
        const bobs = await ok("bob", "GET", "/v1/tasks?status=completed");
        assert.deepEqual(
          bobs.items.map((x: Json) => x.id),
          [t.u1, t.g1, t.u2],
        );
        assert.ok(bobs.items.every((x: Json) => x.status === "done" && x.completedBy === "bob"));
        assert.equal(bobs.items[2].completedAt, iso(at.u2!));
        assert.deepEqual(await list("bob", "/v1/tasks?user=carol&status=completed"), [t.q3]);
        assert.deepEqual(await list("bob", "/v1/tasks?user=dave&status=completed"), []);
        assert.deepEqual(await list("bob", "/v1/tasks?group=clerks&status=completed"), [t.g1]);
      });

      void test("status=cancelled: the user's and the user's groups' cancelled tasks, ties by id", async () => {
        // q1 and q2 were cancelled at the same millisecond: the later id comes first.
        assert.deepEqual(await list("bob", "/v1/tasks?status=cancelled"), [t.q2, t.q1]);
        assert.deepEqual(await list("bob", "/v1/tasks?group=clerks&status=cancelled"), [t.q2]);
        assert.deepEqual(await list("dave", "/v1/tasks?user=carol&status=cancelled"), [t.q2]);
      });

      void test("status=all: every task assigned to the user or the user's groups, by id", async () => {
        const bobs = [t.u1, t.u2, t.u3, t.g1, t.g2, t.g3, t.g4, t.q1, t.q2];
        assert.deepEqual(await list("bob", "/v1/tasks?status=all"), bobs);
        const clerks = [t.g1, t.g2, t.g3, t.g4, t.q2];
        assert.deepEqual(await list("bob", "/v1/tasks?group=clerks&status=all"), clerks);
      });

      void test("paging: each list pages to the same items, one at a time", async () => {
        for (const status of ["open", "claimed", "completed", "cancelled", "all"]) {
          for (const whose of ["", "group=clerks&"]) {
            const url = `/v1/tasks?${whose}status=${status}`;
            const whole = await list("bob", url);
            const paged = await pages("bob", `${url}&limit=1`);
            assert.deepEqual(paged.ids.flat(), whole, url);
            assert.ok(
              paged.ids.every((p) => p.length === 1),
              url,
            );
            assert.equal(paged.cursors.length, Math.max(whole.length - 1, 0), url);
          }
        }
        const two = await pages("bob", "/v1/tasks?status=completed&limit=2");
        assert.deepEqual(two.ids, [[t.u1, t.g1], [t.u2]]);
      });

      void test("a cursor is only good for its own status; bad values are 400s naming them", async () => {
        const openCursor = (await ok("bob", "GET", "/v1/tasks?limit=1")).nextCursor as string;
        const doneCursor = (await ok("bob", "GET", "/v1/tasks?status=completed&limit=1"))
          .nextCursor as string;
        const allCursor = (await ok("bob", "GET", "/v1/tasks?status=all&limit=1"))
          .nextCursor as string;
        assert.ok(openCursor && doneCursor && allCursor);
        const another = /cursor/;
        await bad(`/v1/tasks?status=completed&cursor=${openCursor}`, another);
        await bad(`/v1/tasks?status=cancelled&cursor=${doneCursor}`, another);
        await bad(`/v1/tasks?status=claimed&cursor=${allCursor}`, another);
        await bad(`/v1/tasks?cursor=${doneCursor}`, another);
        await bad(`/v1/tasks?status=open&cursor=${allCursor}`, another);
        // A tagged cursor whose position is junk.
        const junk = Buffer.from("completed|x.y").toString("base64url");
        await bad(`/v1/tasks?status=completed&cursor=${junk}`, /malformed cursor/);
        await bad("/v1/tasks?status=done", /query parameter 'status'.*open, claimed, completed/);
        await bad("/v1/tasks?status=", /query parameter 'status'/);
        await bad("/v1/tasks?user=bob&group=clerks&status=all", /either user or group/);
        await bad("/v1/tasks?status=all&sort=asc", /unknown query parameter 'sort'/);
      });
    });

    void describe("GET /v1/runs: startedBy and the creation window", () => {
      const r: Record<string, string> = {};

      before(async () => {
        const start = async (actor: string, wf: string, at: number) => {
          clock.t = at;
          return (await ok(actor, "POST", `/v1/workflows/${wf}/runs`)).runId as string;
        };
        r.a1 = await start("alice", "order", T0 + 10 * HOUR);
        r.b1 = await start("dave", "order", T0 + 11 * HOUR);
        r.a2 = await start("alice", "refund", T0 + 12 * HOUR);
        r.a3 = await start("alice", "order", T0 + 13 * HOUR);
      });

      const runs = (url: string) => list("alice", url);
      // Starts are at T0 + 10h + 1 ms (call() ticks the clock before a write).
      const h = (n: number) => encodeURIComponent(iso(T0 + n * HOUR + 1));

      void test("run JSON names its starter", async () => {
        assert.equal((await ok("dave", "GET", `/v1/runs/${r.b1}`)).startedBy, "dave");
        const page = await ok("dave", "GET", "/v1/runs?startedBy=alice");
        assert.ok(page.items.every((x: Json) => x.startedBy === "alice"));
      });

      void test("startedBy, alone and with workflow and status", async () => {
        assert.deepEqual(await runs("/v1/runs?startedBy=alice"), [r.a1, r.a2, r.a3]);
        assert.deepEqual(await runs("/v1/runs?startedBy=alice&workflow=order"), [r.a1, r.a3]);
        assert.deepEqual(await runs("/v1/runs?startedBy=dave&status=pending"), [r.b1]);
        assert.deepEqual(await runs("/v1/runs?startedBy=dave&status=completed"), []);
        assert.deepEqual(await runs("/v1/runs?startedBy=bob"), []);
        assert.deepEqual(await runs("/v1/runs"), [r.a1, r.b1, r.a2, r.a3]);
      });

      void test("createdAfter is inclusive, createdBefore exclusive; offsets are understood", async () => {
        assert.deepEqual(await runs(`/v1/runs?createdAfter=${h(11)}`), [r.b1, r.a2, r.a3]);
        assert.deepEqual(await runs(`/v1/runs?createdBefore=${h(11)}`), [r.a1]);
        const window = `createdAfter=${h(11)}&createdBefore=${h(13)}`;
        assert.deepEqual(await runs(`/v1/runs?${window}`), [r.b1, r.a2]);
        assert.deepEqual(await runs(`/v1/runs?${window}&startedBy=alice`), [r.a2]);
        assert.deepEqual(await runs(`/v1/runs?createdAfter=${h(12)}&createdBefore=${h(12)}`), []);
        // 2027-01-15T23:00:00.001+01:00 is T0 + 12h + 1 ms.
        const plusOne = encodeURIComponent("2027-01-15T23:00:00.001+01:00");
        assert.deepEqual(await runs(`/v1/runs?createdAfter=${plusOne}`), [r.a2, r.a3]);
      });

      void test("paging across a filter", async () => {
        const paged = await pages("alice", "/v1/runs?startedBy=alice&limit=1");
        assert.deepEqual(paged.ids, [[r.a1], [r.a2], [r.a3]]);
        const windowed = await pages("alice", `/v1/runs?createdAfter=${h(11)}&limit=2`);
        assert.deepEqual(windowed.ids, [[r.b1, r.a2], [r.a3]]);
      });

      void test("order=newest: by creation time, descending, with the filters, paged", async () => {
        assert.deepEqual(await runs("/v1/runs?order=newest"), [r.a3, r.a2, r.b1, r.a1]);
        assert.deepEqual(await runs("/v1/runs?order=oldest"), [r.a1, r.b1, r.a2, r.a3]);
        assert.deepEqual(await runs("/v1/runs?order=newest&startedBy=alice"), [r.a3, r.a2, r.a1]);
        const windowed = `/v1/runs?order=newest&createdAfter=${h(11)}&createdBefore=${h(13)}`;
        assert.deepEqual(await runs(windowed), [r.a2, r.b1]);
        const paged = await pages("alice", "/v1/runs?order=newest&limit=3");
        assert.deepEqual(paged.ids, [[r.a3, r.a2, r.b1], [r.a1]]);
        // A cursor belongs to its order: an oldest-first cursor is refused by newest.
        const oldest = await ok("alice", "GET", "/v1/runs?limit=1");
        await bad(`/v1/runs?order=newest&cursor=${oldest.nextCursor}`, /malformed cursor/);
      });

      void test("bad values are 400s naming the parameter", async () => {
        await bad("/v1/runs?order=latest", /query parameter 'order'/);
        await bad("/v1/runs?createdAfter=yesterday", /query parameter 'createdAfter'/);
        await bad("/v1/runs?createdBefore=2027-01-15", /query parameter 'createdBefore'/);
        await bad("/v1/runs?createdAfter=2027-01-15T10:00:00", /query parameter 'createdAfter'/);
        await bad("/v1/runs?createdAfter=2027-02-30T10:00:00Z", /query parameter 'createdAfter'/);
        await bad(
          `/v1/runs?createdAfter=${h(13)}&createdBefore=${h(12)}`,
          /createdAfter must not be later than createdBefore/,
        );
        await bad("/v1/runs?startedBy=a%20b", /query parameter 'startedBy'/);
        await bad("/v1/runs?startedBy=", /query parameter 'startedBy'/);
        await bad("/v1/runs?status=done", /query parameter 'status'.*pending/);
        await bad("/v1/runs?started_by=alice", /unknown query parameter 'started_by'/);
      });
    });

    void describe("GET /v1/processes: the creation window", () => {
      const p: string[] = [];
      const X = T0 + 20 * HOUR;

      before(async () => {
        for (let i = 0; i < 3; i++) {
          clock.t = X + i * HOUR;
          p.push((await ok("dave", "POST", "/v1/processes", { processKey: "trip" })).instanceId);
        }
      });
      const at = (n: number) => encodeURIComponent(iso(X + n * HOUR + 1));

      void test("createdAfter / createdBefore select the processes made in the window", async () => {
        // dave's run (earlier) owns a process too: the window leaves it out.
        const all = await list("dave", "/v1/processes");
        assert.equal(all.length, 4);
        assert.deepEqual(all.slice(1), p);
        const fromX = `createdAfter=${encodeURIComponent(iso(X))}`;
        assert.deepEqual(await list("dave", `/v1/processes?${fromX}`), p);
        assert.deepEqual(await list("dave", `/v1/processes?createdAfter=${at(1)}`), [p[1], p[2]]);
        assert.deepEqual(await list("dave", `/v1/processes?createdBefore=${at(1)}`), [
          all[0],
          p[0],
        ]);
        const window = `createdAfter=${at(1)}&createdBefore=${at(2)}`;
        assert.deepEqual(await list("alice", `/v1/processes?user=dave&${window}`), [p[1]]);
        assert.deepEqual(await list("dave", `/v1/processes?state=notStarted&${window}`), [p[1]]);
        assert.deepEqual(await list("dave", `/v1/processes?state=open&${window}`), []);
        const paged = await pages("dave", `/v1/processes?createdAfter=${at(0)}&limit=2`);
        assert.deepEqual(paged.ids, [[p[0], p[1]], [p[2]]]);
      });

      void test("bad windows are 400s naming the parameter", async () => {
        await bad("/v1/processes?createdBefore=soon", /query parameter 'createdBefore'/, "dave");
        await bad(
          `/v1/processes?createdAfter=${at(2)}&createdBefore=${at(1)}`,
          /createdAfter must not be later than createdBefore/,
          "dave",
        );
      });
    });

    void test("every list refuses an unknown query parameter, naming it", async () => {
      for (const path of ["/v1/tasks", "/v1/processes", "/v1/runs", "/v1/definitions"]) {
        await bad(`${path}?limit=5&bogus=1`, /^unknown query parameter 'bogus'$/, "alice");
      }
    });
  });
}
