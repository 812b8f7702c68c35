/**
 * The typed HTTP client (src/client) against a real server, on every deployment
 * of test/support/deployment.ts: createTaskflow on a temporary SQLite file, or
 * two nodes on one MariaDB database (sql coordination, then Redis) behind a
 * round-robin balancer; listening on 127.0.0.1 with OS-chosen ports, with an
 * in-process worker for two workflows on every node. Static directory: alice, dave, erin;
 * group clerks = bob, carol. The failure modes a server cannot produce on
 * demand (no listener, a hang, a proxy's HTML page, Retry-After) use a bare
 * node:http server.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import {
  TaskflowClient,
  TaskflowHttpError,
  TaskflowRequestError,
  pages,
  type Run,
} from "../../src/client/index.ts";
import { workflow } from "../../src/workflow.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "client-test-key-0123456789abcdefghijkl";

const greet = workflow("greet", async (ctx, input: { name: string }) => {
  const greeting = await ctx.step("prefix", () => "hello");
  const signal = await ctx.waitForSignal<{ punctuation: string }>("go", { timeout: "1h" });
  return `${greeting} ${input.name}${signal?.punctuation ?? ""}`;
});

const hold = workflow("hold", async (ctx) => {
  await ctx.waitForSignal("never", { timeout: "1h" });
  return "released";
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail("expected the call to fail");
}

async function httpError(p: Promise<unknown>): Promise<TaskflowHttpError> {
  const e = await rejection(p);
  assert.ok(e instanceof TaskflowHttpError, `expected a TaskflowHttpError, got ${String(e)}`);
  return e;
}

async function requestError(p: Promise<unknown>): Promise<TaskflowRequestError> {
  const e = await rejection(p);
  assert.ok(e instanceof TaskflowRequestError, `expected a TaskflowRequestError, got ${String(e)}`);
  return e;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A bare HTTP server answering every request with `handle`; close() ends it. */
async function fakeServer(
  handle: Parameters<typeof createServer>[1],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

for (const kind of deployments) {
  void describe(`client on ${kind.name}`, async () => {
    const options = await kind.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let deployment: Deployment;
    let baseUrl: string;
    let client: TaskflowClient;

    before(async () => {
      deployment = await kind.start(
        {
          addr: "127.0.0.1:0",
          apiKeys: [KEY],
          logLevel: "silent",
          users: "alice,dave,erin",
          groups: { clerks: ["bob", "carol"] },
          // Not under test: a start that blocks the loop for a whole 1 s sample (a loaded machine)
          // reads as "Infinity ms behind" to under-pressure, which then sheds the first requests.
          maxEventLoopDelay: 0,
        },
        // A short poll: on two nodes the worker that did not get the signal finds it by polling.
        { workflows: [greet, hold], worker: { pollMs: 50 } },
      );
      baseUrl = await deployment.listen();
      client = new TaskflowClient({ baseUrl, apiKey: KEY });
    });

    after(async () => {
      await deployment?.close();
    });

    /** A new process of `key` started by `actor`: the parent of an assignment. */
    async function processOf(actor: string, key: string): Promise<string> {
      return (await client.as(actor).startProcess({ processKey: key })).instanceId;
    }

    async function waitForRun(runId: string, done: (r: Run) => boolean, ms = 10_000): Promise<Run> {
      const end = Date.now() + ms;
      for (;;) {
        const run = await client.getRun(runId);
        if (done(run)) return run;
        if (Date.now() > end) throw new Error(`run ${runId} stuck: ${JSON.stringify(run)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    void describe("human tasks through the client", () => {
      void test("start → assign two users with onAllCompleted → both complete → the join assigns alice", async () => {
        const alice = client.as("alice");
        const started = await alice.startProcess({
          processKey: "leave",
          name: "Leave request",
          vars: { days: 3 },
        });
        assert.equal(started.definitionKey, "leave");

        const review = await alice.assign({
          parentInstanceId: started.instanceId,
          assignee: { kind: "users", ids: ["bob", "carol"] },
          vars: { step: "review" },
          onAllCompleted: { assignee: { kind: "user", id: "alice" }, vars: { step: "decide" } },
        });
        assert.equal(review.tasks.length, 2);
        assert.deepEqual(
          review.tasks.map((t) => t.assignee),
          [
            { kind: "user", id: "bob" },
            { kind: "user", id: "carol" },
          ],
        );
        assert.equal(review.task.assignedBy, "alice");
        assert.equal(review.task.status, "open");
        assert.match(review.task.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

        const bobTask = review.tasks[0]!;
        const carolTask = review.tasks[1]!;
        const first = await client.as("bob").complete(bobTask.id, { vars: { approved: true } });
        assert.equal(first.task.status, "done");
        assert.equal(first.task.completedBy, "bob");
        assert.equal(first.completion.allCompleted, false);
        assert.equal(first.next, null);

        const last = await client.as("carol").complete(carolTask.id, { vars: { approved: true } });
        assert.equal(last.completion.allCompleted, true);
        assert.ok(last.next, "the join fired");
        assert.equal(last.joined?.instanceId, last.next.instanceId);
        assert.deepEqual(last.next.task.assignee, { kind: "user", id: "alice" });
        assert.equal(last.next.task.assignedBy, "alice");

        const completion = await client.getCompletion(review.instanceId);
        assert.deepEqual(completion, {
          instanceId: review.instanceId,
          allCompleted: true,
          total: 2,
          open: 0,
          claimed: 0,
          done: 2,
          cancelled: 0,
        });
        const inbox = await collect(alice.inboxAll());
        assert.ok(inbox.some((t) => t.id === last.next!.task.id));

        const ended = await alice.completeAndEnd(last.next.task.id, { vars: { decision: "ok" } });
        assert.equal(ended.rootInstanceId, started.instanceId);
        const tree = await alice.getInstance(started.instanceId);
        assert.equal(tree.processState, "closed");
        assert.equal(tree.children.length, 2);
        assert.deepEqual(
          (await collect(alice.listProcessesAll({ state: "closed" }))).map((p) => p.id),
          [started.instanceId],
        );
        const def = await client.getDefinition("leave");
        assert.equal(def.name, "Leave request");
        assert.ok((await collect(client.listDefinitionsAll())).some((d) => d.key === "leave"));
      });

      void test("inboxAll and pages() follow nextCursor across pages, in creation order", async () => {
        const dave = client.as("dave");
        const parentInstanceId = await processOf("dave", "paged");
        const made: string[] = [];
        for (let i = 0; i < 5; i++) {
          const r = await dave.assign({
            parentInstanceId,
            assignee: { kind: "user", id: "erin" },
          });
          made.push(r.task.id);
        }
        const erin = client.as("erin");
        const seen = await collect(erin.inboxAll({ limit: 2 }));
        assert.deepEqual(
          seen.map((t) => t.id),
          made,
        );

        const sizes: number[] = [];
        for await (const page of pages((cursor) => erin.inbox({ limit: 2, cursor }))) {
          sizes.push(page.items.length);
        }
        assert.deepEqual(sizes, [2, 2, 1]);

        // Breaking out stops fetching; a fresh iterator starts over.
        let n = 0;
        for await (const _ of erin.inboxAll({ limit: 2 })) if (++n === 3) break;
        assert.equal(n, 3);
      });

      void test("list filters: inbox and groupInbox by status, newest first for completed", async () => {
        const alice = client.as("alice");
        const parentInstanceId = await processOf("alice", "filtered");
        const mine = async () =>
          (await alice.assign({ parentInstanceId, assignee: { kind: "user", id: "dave" } })).task
            .id;
        const [first, second] = [await mine(), await mine()];
        const dave = client.as("dave");
        await dave.complete(first);
        await dave.complete(second);
        const done = await collect(dave.inboxAll({ status: "completed", limit: 1 }));
        assert.deepEqual(
          done.map((t) => t.id),
          [second, first],
        );
        assert.deepEqual((await dave.inbox({ status: "claimed" })).items, []);
        const { task } = await alice.assign({
          parentInstanceId,
          assignee: { kind: "group", id: "clerks" },
        });
        await client.as("carol").claim(task.id);
        const claimed = await alice.groupInbox("clerks", { status: "claimed" });
        assert.ok(claimed.items.some((t) => t.id === task.id));
        assert.ok(!(await alice.groupInbox("clerks")).items.some((t) => t.id === task.id));
      });

      void test("a group task: claimed by bob it leaves the group inbox, released it returns", async () => {
        const alice = client.as("alice");
        const { task } = await alice.assign({
          parentInstanceId: await processOf("alice", "group-work"),
          assignee: { kind: "group", id: "clerks" },
        });
        const bob = client.as("bob");
        const claimed = await bob.claim(task.id);
        assert.equal(claimed.status, "claimed");
        assert.equal(claimed.claimedBy, "bob");
        const groupIds = (await collect(client.as("carol").groupInboxAll("clerks"))).map(
          (t) => t.id,
        );
        assert.ok(!groupIds.includes(task.id));

        const e = await httpError(client.as("carol").release(task.id));
        assert.equal(e.status, 403);
        assert.equal(e.code, "Forbidden");

        const released = await bob.release(task.id);
        assert.equal(released.status, "open");
        assert.equal(released.claimedBy, null);
        const again = (await collect(client.as("carol").groupInboxAll("clerks"))).map((t) => t.id);
        assert.ok(again.includes(task.id));
      });

      void test("two members racing to claim: one wins, the other gets TaskflowHttpError NotOpen (409)", async () => {
        const { task } = await client.as("alice").assign({
          parentInstanceId: await processOf("alice", "race"),
          assignee: { kind: "group", id: "clerks" },
        });
        const results = await Promise.allSettled([
          client.as("bob").claim(task.id),
          client.as("carol").claim(task.id),
        ]);
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter((r) => r.status === "rejected");
        assert.equal(won.length, 1);
        assert.equal(lost.length, 1);
        const e = lost[0]!.reason as unknown;
        assert.ok(e instanceof TaskflowHttpError);
        assert.equal(e.status, 409);
        assert.equal(e.code, "NotOpen");
        assert.equal(e.title, "Task is not open");
        assert.equal(e.type, "urn:taskflow:problem:NotOpen");
        assert.match(e.detail, /claimed/);
        assert.equal(e.request, `POST /v1/tasks/${task.id}/claim`);
        assert.equal(e.retryAfter, undefined);
      });

      void test("errors: NotFound, Validation; ids are path-encoded (a '/' does not change the route)", async () => {
        assert.equal((await httpError(client.getTask("no-such-task"))).code, "NotFound");
        // Encoded, "a/b" reaches GET /v1/tasks/{id} and fails the id pattern; sent raw it
        // would be the unknown route /v1/tasks/a/b (404).
        const bad = await httpError(client.getTask("a/b"));
        assert.equal(bad.code, "Validation");
        assert.equal(bad.request, "GET /v1/tasks/a%2Fb");
        const limit = await httpError(client.listRuns({ limit: 0 }));
        assert.equal(limit.status, 400);
        assert.equal(limit.code, "Validation");
      });

      void test("as() refuses an empty actor before any request", () => {
        assert.throws(() => client.as(""), TypeError);
        assert.throws(() => client.as(undefined as unknown as string), TypeError);
      });

      void test("idempotencyKey: a retried call gets the first answer; another request with it is Unprocessable", async () => {
        const erin = client.as("erin");
        const request = { processKey: "idem-client", vars: { n: 1 } };
        const idempotencyKey = "client-order-1";
        const first = await erin.startProcess(request, { idempotencyKey });
        assert.deepEqual(await erin.startProcess(request, { idempotencyKey }), first);
        const e = await httpError(erin.startProcess({ processKey: "other" }, { idempotencyKey }));
        assert.equal(e.status, 422);
        assert.equal(e.code, "Unprocessable");
        const bad = await httpError(erin.claim("t", { idempotencyKey: "has space" }));
        assert.equal(bad.code, "Validation");
        // A default header cannot set one key for every call.
        const withDefault = new TaskflowClient({
          baseUrl,
          apiKey: KEY,
          headers: { "Idempotency-Key": "every-call" },
        }).as("erin");
        const a = await withDefault.startProcess(request);
        const b = await withDefault.startProcess(request);
        assert.notEqual(a.instanceId, b.instanceId);
        const mine = await erin.listProcesses({ limit: 100 });
        const started = mine.items.filter((i) => i.definitionKey === "idem-client");
        assert.equal(started.length, 3, "one for the keyed pair, two without a key");
      });
    });

    void describe("durable runs through the client", () => {
      void test("start with an id (':' '@' '.'), idempotent restart, signal, completed output, history, list", async () => {
        const shop = client.as("alice");
        const id = "order:1@shop.example";
        const started = await shop.startRun("greet", { id, input: { name: "Ada" } });
        assert.equal(started.runId, id);
        assert.equal(started.created, true);
        const again = await shop.startRun("greet", { id });
        assert.deepEqual(again.created, false);
        assert.equal(again.runId, id);

        await waitForRun(id, (r) => r.status === "waiting");
        const accepted = await shop.signalRun(id, "go", { punctuation: "!" });
        assert.equal(accepted.runId, id);

        const run = await waitForRun(id, (r) => r.status === "completed");
        assert.equal(run.output, "hello Ada!");
        assert.deepEqual(run.input, { name: "Ada" });
        assert.equal(run.workflow, "greet");
        assert.equal(run.error, null);

        const history = await client.getRunHistory(id);
        const types = history.items.map((e) => e.type);
        assert.deepEqual(types.slice(0, 2), ["step", "signal_wait"]);
        const signal = history.items.find((e) => e.type === "signal");
        assert.equal(signal?.name, "go");
        assert.deepEqual((signal?.data as { payload: unknown }).payload, { punctuation: "!" });
        assert.equal(typeof history.items[0]!.at, "string");
        assert.equal(history.nextCursor, null);
        // Paged: one event a page, followed to the end, is the same history.
        const first = await client.getRunHistory(id, { limit: 1 });
        assert.equal(first.items.length, 1);
        assert.notEqual(first.nextCursor, null);
        const paged = await collect(client.getRunHistoryAll(id, { limit: 1 }));
        assert.deepEqual(paged, history.items);

        const listed = await collect(
          client.listRunsAll({ workflow: "greet", status: "completed" }),
        );
        assert.ok(listed.some((r) => r.runId === id));
        const finished = await httpError(shop.signalRun(id, "go", { punctuation: "?" }));
        assert.equal(finished.code, "Conflict");
      });

      void test("listRuns by startedBy and a creation window (a Date or an ISO string)", async () => {
        const before = new Date();
        const { runId } = await client.as("erin").startRun("hold");
        const run = await client.getRun(runId);
        assert.equal(run.startedBy, "erin");
        const byErin = await client.listRuns({ startedBy: "erin", createdAfter: before });
        assert.deepEqual(
          byErin.items.map((r) => r.runId),
          [runId],
        );
        const earlier = await client.listRuns({ startedBy: "erin", createdBefore: before });
        assert.deepEqual(earlier.items, []);
        const reversed = await httpError(
          client.listRuns({ createdAfter: new Date(before.getTime() + 1), createdBefore: before }),
        );
        assert.equal(reversed.code, "Validation");
        const procs = await client.as("erin").listProcesses({ createdAfter: before });
        assert.deepEqual(
          procs.items.map((i) => i.id),
          [run.rootInstanceId],
        );
        await client.as("erin").cancelRun(runId);
      });

      void test("cancel a waiting run: 202, then it ends cancelled", async () => {
        const alice = client.as("alice");
        const { runId, created } = await alice.startRun("hold");
        assert.equal(created, true);
        await waitForRun(runId, (r) => r.status === "waiting");
        const accepted = await alice.cancelRun(runId);
        assert.equal(accepted.runId, runId);
        const run = await waitForRun(runId, (r) => r.status === "cancelled");
        assert.equal(run.cancelRequested, true);
        assert.equal(run.error?.type, "cancelled");
        assert.equal((await httpError(alice.startRun("no-such-workflow"))).code, "NotFound");
      });
    });

    void describe("tenants, keys and transport failures", () => {
      void test("X-Tenant-Id: a tenant's process is invisible from another tenant", async () => {
        const acme = client.withTenant("acme");
        assert.equal(acme.tenantId, "acme");
        assert.equal(client.tenantId, undefined);
        const p = await acme.as("alice").startProcess({ processKey: "tenant-proc" });
        assert.equal((await acme.getInstance(p.instanceId)).id, p.instanceId);
        assert.equal((await httpError(client.getInstance(p.instanceId))).code, "NotFound");
        const other = new TaskflowClient({ baseUrl, apiKey: KEY, tenantId: "globex" });
        assert.equal((await httpError(other.getInstance(p.instanceId))).code, "NotFound");
        const fromOption = new TaskflowClient({ baseUrl, apiKey: KEY, tenantId: "acme" });
        assert.equal((await fromOption.getInstance(p.instanceId)).id, p.instanceId);
      });

      void test("a wrong API key is 401 Unauthorized, and the key is in no message", async () => {
        const secret = "wrong-secret-9f8e7d";
        const wrong = new TaskflowClient({ baseUrl, apiKey: secret });
        const e = await httpError(wrong.as("alice").inbox());
        assert.equal(e.status, 401);
        assert.equal(e.code, "Unauthorized");
        for (const text of [e.message, String(e), e.stack ?? "", e.detail, e.title]) {
          assert.ok(!text.includes(secret), `key leaked into: ${text}`);
        }
        assert.ok(!JSON.stringify(e).includes(secret));
      });

      void test("nothing listening: TaskflowRequestError kind network, key not in the message", async () => {
        const gone = await fakeServer((_req, res) => res.end());
        await gone.close(); // the port is free now: connections are refused
        const c = new TaskflowClient({ baseUrl: gone.url, apiKey: KEY });
        const e = await requestError(c.getRun("r1"));
        assert.equal(e.kind, "network");
        assert.equal(e.request, "GET /v1/runs/r1");
        assert.match(e.message, /ECONNREFUSED/);
        assert.ok(!e.message.includes(KEY));
      });

      void test("a server that never answers: TaskflowRequestError kind timeout after timeoutMs", async () => {
        const hang = await fakeServer(() => undefined);
        try {
          const c = new TaskflowClient({ baseUrl: hang.url, apiKey: KEY, timeoutMs: 150 });
          // fetch sets up its HTTP stack on first use, which can block the event loop for
          // longer than the timeout: warm it up, so the time below is the timer's.
          await client.as("alice").inbox();
          const t0 = performance.now();
          const e = await requestError(c.as("alice").claim("t1"));
          const took = performance.now() - t0;
          assert.equal(e.kind, "timeout");
          // Not before 150 ms, less 10 ms: a timer counts from the event loop's clock,
          // which was read at the start of this turn and may be a few ms behind t0.
          // Well before 1.5 s: the abort is one timer and a rejection past 150 ms, and
          // 10× leaves a loaded 2-core machine room for stalls of a second while still
          // failing a timeout that is ignored (the 10 s default) or mis-scaled.
          assert.ok(took >= 140 && took < 1_500, `timed out after ${Math.round(took)} ms`);
          assert.match(e.message, /150 ms/);
        } finally {
          await hang.close();
        }
      });

      void test("non-problem answers: an HTML 502 and a non-JSON 200 are kind response", async () => {
        const proxy = await fakeServer((req, res) => {
          if (req.url?.startsWith("/v1/runs/html")) {
            res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>");
          } else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
        });
        try {
          const c = new TaskflowClient({ baseUrl: proxy.url, apiKey: KEY });
          const e502 = await requestError(c.getRun("html"));
          assert.equal(e502.kind, "response");
          assert.equal(e502.status, 502);
          const e200 = await requestError(c.getRun("text"));
          assert.equal(e200.kind, "response");
          assert.equal(e200.status, 200);
        } finally {
          await proxy.close();
        }
      });

      void test("headers: key, actor, tenant, extra headers (which cannot replace the client's own); Retry-After", async () => {
        let seen: IncomingHttpHeaders = {};
        let seenUrl = "";
        let seenBody = "";
        const fake = await fakeServer((req, res) => {
          seen = req.headers;
          seenUrl = req.url ?? "";
          let body = "";
          req.on("data", (c: Buffer) => (body += c.toString()));
          req.on("end", () => {
            seenBody = body;
            res
              .writeHead(429, { "content-type": "application/problem+json", "retry-after": "7" })
              .end(
                JSON.stringify({
                  type: "urn:taskflow:problem:RateLimited",
                  title: "Too many requests",
                  status: 429,
                  detail: "slow down",
                  code: "RateLimited",
                }),
              );
          });
        });
        try {
          const c = new TaskflowClient({
            baseUrl: `${fake.url}/prefix/`,
            apiKey: KEY,
            tenantId: "acme",
            headers: { "X-Request-Id": "req-1", "X-Actor-Id": "mallory", "X-API-Key": "other" },
          });
          const e = await httpError(c.as("alice").signalRun("r:1", "go/now", [1, 2]));
          assert.equal(e.code, "RateLimited");
          assert.equal(e.retryAfter, 7);
          assert.equal(seenUrl, "/prefix/v1/runs/r%3A1/signals/go%2Fnow");
          assert.equal(seen["x-api-key"], KEY);
          assert.equal(seen["x-actor-id"], "alice");
          assert.equal(seen["x-tenant-id"], "acme");
          assert.equal(seen["x-request-id"], "req-1");
          assert.equal(seen["content-type"], "application/json");
          assert.equal(seenBody, "[1,2]");

          await httpError(c.as("bob").inbox({ limit: 3 }));
          assert.equal(seenUrl, "/prefix/v1/tasks?user=bob&limit=3");
          assert.equal(seen["content-type"], undefined);
          assert.equal(seenBody, "");
          const keyless = new TaskflowClient({ baseUrl: fake.url, apiKey: null });
          await httpError(keyless.getTask("t"));
          assert.equal(seen["x-api-key"], undefined);
          assert.equal(seen["x-actor-id"], undefined);
          assert.equal(seen["x-tenant-id"], undefined);
          // No apiKey at all means none, as null does.
          const absent = new TaskflowClient({ baseUrl: fake.url });
          seen = {};
          await httpError(absent.getTask("t"));
          assert.equal(seenUrl, "/v1/tasks/t");
          assert.equal(seen["x-api-key"], undefined);
        } finally {
          await fake.close();
        }
      });

      void test("bad options are refused at construction", () => {
        assert.throws(() => new TaskflowClient({ baseUrl: "not a url", apiKey: KEY }), TypeError);
        assert.throws(() => new TaskflowClient({ baseUrl: "ftp://x", apiKey: KEY }), TypeError);
        assert.throws(
          () => new TaskflowClient({ baseUrl: "http://u:p@x", apiKey: KEY }),
          /credentials/,
        );
        assert.throws(() => new TaskflowClient({ baseUrl, apiKey: "" }), TypeError);
        assert.throws(() => new TaskflowClient({ baseUrl, apiKey: KEY, timeoutMs: 0 }), TypeError);
      });
    });
  });
}
