/**
 * Property: no generated bad request gets a 5xx, a non-problem answer, or
 * changes any row — on every backend.
 *
 * Each request carries at least one defect that must stop it (missing or
 * malformed headers, wrong key, malformed JSON, wrong types, unknown enum
 * values, over-long ids, oversized bodies, bad paging, unknown ids, an actor
 * without the right to act, text a store cannot keep (NUL, unpaired
 * surrogates), numbers JSON.parse would change, poisoning keys, bad
 * percent-encoding). Requests no HTTP client sends (oversized headers,
 * malformed request lines, CONNECT) go over a raw socket to the listening
 * server. Afterwards the database must be what it was.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ErrorCodes } from "../../src/domain/errors.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { loadConfig } from "../../src/config/index.ts";
import { decodeCursor } from "../../src/server/requests/pagination.ts";
import { workflow } from "../../src/workflow.ts";
import {
  backends,
  backendTestOptions,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { snapshotDatabase } from "../support/db-snapshot.ts";
import { rawExchange, type RawAnswer } from "../support/raw-http.ts";

function isCursor(c: string): boolean {
  try {
    decodeCursor(c);
    return true;
  } catch {
    return false;
  }
}

const KEY = "prop-key-0123456789abcdefghijkl";
const CODES: readonly string[] = ErrorCodes; // the 4xx catalogue: "Internal" (500) must never appear
const RUNS: Record<Backend["name"], number> = { sqlite: 1200, postgres: 1200, mysql: 1200 };
const RAW_RUNS = 200;
// FC_SEED replays a failing run (fast-check prints the seed of every failure).
const seedOption = () => (process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {});

type App = Awaited<ReturnType<typeof createTaskflow>>;
interface Seeded {
  root: string;
  userTask: string;
  groupTask: string;
  referral: string;
  /** A run waiting for the signal "go": target of signal requests. */
  run: string;
}

const idle = workflow("idle", async (ctx) => ctx.waitForSignal("go"));

async function seed(app: App): Promise<Seeded> {
  const h = { "x-api-key": KEY, "x-actor-id": "alice" };
  // Loosely typed on purpose: the seed reads a few fields of several answer shapes.
  type Answer = { instanceId: string; task: { id: string }; runId: string };
  const post = async (url: string, payload: object) =>
    (await app.server.inject({ method: "POST", url, headers: h, payload })).json<Answer>();
  const p = await post("/v1/processes", { processKey: "prop" });
  const u = await post("/v1/assignments", {
    parentInstanceId: p.instanceId,
    assignee: { kind: "user", id: "bob" },
  });
  const g = await post("/v1/assignments", {
    parentInstanceId: p.instanceId,
    assignee: { kind: "group", id: "clerks" },
  });
  const r = await post("/v1/workflows/idle/runs", {});
  // Wait (up to 20 s on a busy machine) until the worker has parked the run: a moving run
  // would change rows under the snapshot.
  for (let i = 0; i < 800; i++) {
    if ((await app.runs.get("default", r.runId)).status === "waiting") break;
    await sleep(25);
  }
  const seeded = {
    root: p.instanceId,
    userTask: u.task.id,
    referral: u.instanceId,
    groupTask: g.task.id,
    run: r.runId,
  };
  assert.ok(seeded.userTask && seeded.groupTask && seeded.run, "seed data created");
  assert.equal((await app.runs.get("default", seeded.run)).status, "waiting");
  return seeded;
}

interface Req {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

const json = (v: unknown) => JSON.stringify(v);

/** Built after the seed data exists: several generators aim at the seeded task ids. */
function generators(seeded: Seeded) {
  const goodHeaders = () => ({
    "x-api-key": KEY,
    "x-actor-id": "bob",
    "content-type": "application/json",
  });
  const badId = fc.oneof(
    fc.constant(""),
    fc.string({ minLength: 129, maxLength: 300 }),
    fc.constantFrom("a b", "ä", "x/y", "x?y", "<script>", "a\tb", "é".repeat(3), "💥"),
  );
  const unknownId = fc.uuid();
  const notJson = fc.oneof(
    fc.constantFrom("{", "{'a':1}", "[1,", "nul", '{"processKey": }', "\u0000", "}{"),
    fc.string({ minLength: 1, maxLength: 40 }).filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
  );
  const notString = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.object({ maxDepth: 1 }),
  );
  const notObject = fc.oneof(
    fc.integer(),
    fc.string(),
    fc.boolean(),
    fc.array(fc.anything(), { maxLength: 3 }),
  );
  const badAssignee = fc.oneof(
    fc.record({
      kind: fc.string().filter((k) => !["user", "group", "users"].includes(k)),
      id: fc.constant("bob"),
    }),
    fc.record({ kind: fc.constant("user"), id: fc.oneof(notString, badId) }),
    fc.record({
      kind: fc.constant("users"),
      ids: fc.oneof(notObject, fc.constant([]), fc.array(badId, { minLength: 1, maxLength: 3 })),
    }),
    fc.record({ kind: fc.constant("user"), id: fc.constantFrom("nobody", "mallory") }), // unknown to the static directory
    fc.record({ kind: fc.constant("group"), id: fc.constant("no-such-group") }),
    notObject,
  );

  /** A request to a writing route whose body or path carries a defect. */
  const badWrite: fc.Arbitrary<Req> = fc.oneof(
    fc.record({ processKey: fc.oneof(notString, badId), vars: fc.option(notObject) }).map((b) => ({
      method: "POST" as const,
      url: "/v1/processes",
      headers: goodHeaders(),
      payload: json(b),
    })),
    fc.record({ processKey: fc.constant("ok"), vars: notObject }).map((b) => ({
      method: "POST" as const,
      url: "/v1/processes",
      headers: goodHeaders(),
      payload: json(b),
    })),
    fc
      .record({ assignee: badAssignee, parentInstanceId: fc.constantFrom(seeded.root) })
      .map((b) => ({
        method: "POST" as const,
        url: "/v1/assignments",
        headers: goodHeaders(),
        payload: json({ ...b, parentInstanceId: seeded.root }),
      })),
    fc
      .record({
        definitionKey: fc.oneof(notString, badId, fc.constant("no-such-def")),
        assignee: fc.constant({ kind: "user", id: "bob" }),
      })
      .map((b) => ({
        method: "POST" as const,
        url: "/v1/assignments",
        headers: goodHeaders(),
        payload: json(b),
      })),
    fc
      .record({
        parentInstanceId: fc.oneof(unknownId, badId, notString),
        assignee: fc.constant({ kind: "user", id: "bob" }),
      })
      .map((b) => ({
        method: "POST" as const,
        url: "/v1/assignments",
        headers: goodHeaders(),
        payload: json(b),
      })),
    fc
      .record({ onAllCompleted: fc.oneof(notObject, fc.record({ assignee: badAssignee })) })
      .map((b) => ({
        method: "POST" as const,
        url: "/v1/assignments",
        headers: goodHeaders(),
        payload: json({
          ...b,
          parentInstanceId: seeded.root,
          assignee: { kind: "user", id: "bob" },
        }),
      })),
    fc
      .tuple(
        fc.constantFrom("complete", "complete-and-end"),
        fc.oneof(
          notObject.filter((v) => typeof v !== "string"),
          fc.record({ vars: notObject }),
        ),
      )
      .map(([op, b]) => ({
        method: "POST" as const,
        url: `/v1/tasks/${seeded.userTask}/${op}`,
        headers: goodHeaders(),
        payload: json(b),
      })),
    // `next` belongs to complete only (complete-and-end ignores it as an unknown field).
    fc.record({ next: fc.oneof(notObject, fc.record({ assignee: badAssignee })) }).map((b) => ({
      method: "POST" as const,
      url: `/v1/tasks/${seeded.userTask}/complete`,
      headers: goodHeaders(),
      payload: json(b),
    })),
    fc
      .tuple(
        fc.constantFrom("claim", "release", "complete", "complete-and-end"),
        fc.oneof(unknownId, badId),
      )
      .map(([op, id]) => ({
        method: "POST" as const,
        url: `/v1/tasks/${encodeURIComponent(id)}/${op}`,
        headers: goodHeaders(),
        payload: "{}",
      })),
  );

  /** A writing route with a good body but a header that must stop it. */
  const badHeaders: fc.Arbitrary<Req> = fc
    .tuple(
      fc.constantFrom<[string, string]>(
        ["/v1/processes", json({ processKey: "hdr" })],
        [`/v1/tasks/${seeded.userTask}/complete`, "{}"],
        [`/v1/tasks/${seeded.groupTask}/claim`, "{}"],
        ["/v1/assignments", json({ definitionKey: "prop", assignee: { kind: "user", id: "bob" } })],
      ),
      fc.oneof(
        fc.constant({ drop: "x-actor-id" }),
        fc.constant({ drop: "x-api-key" }),
        fc
          .string({ maxLength: 20 })
          .filter((k) => k !== KEY)
          .map((k) => ({ set: ["x-api-key", k] as const })),
        badId
          .filter((s) => /^[\x20-\x7e]*$/.test(s))
          .map((a) => ({ set: ["x-actor-id", a] as const })),
        fc
          .constantFrom("", "a b", "x".repeat(65), "t/1")
          .map((t) => ({ set: ["x-tenant-id", t] as const })),
        fc.constant({ set: ["x-actor-id", "mallory"] as const }), // not in WF_USERS
      ),
    )
    .map(([[url, payload], d]) => {
      const headers: Record<string, string> = goodHeaders();
      if ("drop" in d) delete headers[d.drop];
      else headers[d.set[0]] = d.set[1];
      return { method: "POST" as const, url, headers, payload };
    });

  /** Actors without the right: only bob may complete bob's task; the group task must be claimed by a member. */
  const wrongActor: fc.Arbitrary<Req> = fc.oneof(
    fc.constantFrom("alice", "carol").map((a) => ({
      method: "POST" as const,
      url: `/v1/tasks/${seeded.userTask}/complete`,
      headers: { ...goodHeaders(), "x-actor-id": a },
      payload: "{}",
    })),
    fc.constantFrom("alice").map((a) => ({
      method: "POST" as const,
      url: `/v1/tasks/${seeded.groupTask}/claim`,
      headers: { ...goodHeaders(), "x-actor-id": a },
      payload: "{}",
    })),
    fc.constantFrom("bob", "carol").map((a) => ({
      method: "POST" as const,
      url: `/v1/tasks/${seeded.groupTask}/complete`,
      headers: { ...goodHeaders(), "x-actor-id": a },
      payload: "{}",
    })),
    fc.constantFrom("bob", "carol").map((a) => ({
      method: "POST" as const,
      url: `/v1/tasks/${seeded.groupTask}/release`,
      headers: { ...goodHeaders(), "x-actor-id": a },
      payload: "{}",
    })),
  );

  const malformedBody: fc.Arbitrary<Req> = fc
    .tuple(
      fc.constantFrom("/v1/processes", "/v1/assignments", `/v1/tasks/${seeded.userTask}/complete`),
      notJson,
    )
    .map(([url, payload]) => ({ method: "POST" as const, url, headers: goodHeaders(), payload }));

  const oversized: fc.Arbitrary<Req> = fc
    .constantFrom("/v1/processes", "/v1/assignments", `/v1/tasks/${seeded.userTask}/complete`)
    .map((url) => ({
      method: "POST" as const,
      url,
      headers: goodHeaders(),
      payload: json({ processKey: "big", vars: { blob: "x".repeat(1024 * 1024 + 10) } }),
    }));

  const badQuery: fc.Arbitrary<Req> = fc
    .tuple(
      fc.constantFrom("/v1/tasks", "/v1/processes", "/v1/definitions", "/v1/tasks?group=clerks"),
      fc.oneof(
        fc
          .oneof(
            fc.integer({ max: 0 }),
            fc.integer({ min: 501 }),
            fc.constantFrom("abc", "1.5", "", "1e3"),
          )
          .map((l) => `limit=${encodeURIComponent(String(l))}`),
        fc
          .oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom("!!!", "%%%", "null"))
          // A random string can be a real cursor ("MA" is base64url of the id "0"): not bad input.
          .filter((c) => !isCursor(c))
          .map((c) => `cursor=${encodeURIComponent(c)}`),
      ),
    )
    .map(([path, q]) => ({
      method: "GET" as const,
      url: `${path}${path.includes("?") ? "&" : "?"}${q}`,
      headers: goodHeaders(),
    }));

  const badEnum: fc.Arbitrary<Req> = fc.oneof(
    fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((s) => !["notStarted", "open", "closed"].includes(s))
      .map((s) => ({
        method: "GET" as const,
        url: `/v1/processes?state=${encodeURIComponent(s)}`,
        headers: goodHeaders(),
      })),
    fc.constant({
      method: "GET" as const,
      url: "/v1/tasks?user=bob&group=clerks",
      headers: goodHeaders(),
    }),
  );

  const badRead: fc.Arbitrary<Req> = fc
    .tuple(
      fc.constantFrom("/v1/tasks/", "/v1/instances/", "/v1/definitions/"),
      fc.oneof(
        unknownId,
        badId.filter((s) => s.length > 0),
      ),
      fc.constantFrom("", "/completion"),
    )
    .map(([p, id, suffix]) => ({
      method: "GET" as const,
      url: `${p}${encodeURIComponent(id)}${p === "/v1/instances/" ? suffix : ""}`,
      headers: goodHeaders(),
    }));

  /** Text a store cannot keep as sent: NUL and unpaired surrogates, in values and in keys. */
  const unstorable = fc.constantFrom("\u0000", "\ud800", "\udfff", "a\ud83d", "\ude00b");
  const withUnstorable = fc
    .tuple(fc.string({ maxLength: 8 }), unstorable, fc.string({ maxLength: 8 }))
    .map(([a, bad, b]) => a + bad + b);
  const hostileText: fc.Arbitrary<Req> = fc.oneof(
    fc
      .oneof(
        withUnstorable.map((name) => ({ processKey: "ht", name })),
        withUnstorable.map((v) => ({ processKey: "ht", vars: { x: [1, { y: v }] } })),
        withUnstorable.map((k) => ({ processKey: "ht", vars: { [k]: 1 } })),
      )
      .map((b) => ({
        method: "POST" as const,
        url: "/v1/processes",
        headers: goodHeaders(),
        payload: json(b),
      })),
    withUnstorable.map((v) => ({
      method: "POST" as const,
      url: `/v1/tasks/${seeded.userTask}/complete`,
      headers: goodHeaders(),
      payload: json({ vars: { note: v } }),
    })),
    withUnstorable.map((v) => ({
      method: "POST" as const,
      url: "/v1/workflows/idle/runs",
      headers: goodHeaders(),
      payload: json({ input: { list: [v] } }),
    })),
    // A signal name in the path (percent-encoded NUL or a lone surrogate's bytes), or a payload.
    fc.constantFrom("a%00b", "%00", "x%ED%A0%80", "%F0%9F%98").map((name) => ({
      method: "POST" as const,
      url: `/v1/runs/${seeded.run}/signals/${name}`,
      headers: goodHeaders(),
      payload: "{}",
    })),
    withUnstorable.map((v) => ({
      method: "POST" as const,
      url: `/v1/runs/${seeded.run}/signals/go`,
      headers: goodHeaders(),
      payload: json(v),
    })),
  );

  /** Numbers JSON.parse would change, and keys the poisoning guard refuses, as raw JSON text. */
  const changedNumber = fc.oneof(
    fc.constantFrom("1e309", "-1e309", "1e-400", "-0", "-0.0", "-0e5", "9007199254740993"),
    fc
      .bigInt({ min: 2n ** 53n + 1n, max: 2n ** 80n })
      .filter((n) => BigInt(Number(n)) !== n)
      .map(String),
    fc.integer({ min: 309, max: 2000 }).map((e) => `${e % 2 ? "-" : ""}1.5e${e}`),
  );
  const badNumbers: fc.Arbitrary<Req> = fc
    .tuple(
      changedNumber,
      fc.constantFrom<[string, (n: string) => string]>(
        ["/v1/processes", (n) => `{"processKey":"num","vars":{"x":${n}}}`],
        ["/v1/processes", (n) => `{"processKey":"num","vars":{"a":[1,{"b":${n}}]}}`],
        ["/v1/workflows/idle/runs", (n) => `{"input":${n}}`],
        [`/v1/tasks/${seeded.userTask}/complete`, (n) => `{"vars":{"n":${n}}}`],
        [`/v1/runs/${seeded.run}/signals/go`, (n) => `[${n}]`],
      ),
    )
    .map(([n, [url, body]]) => ({
      method: "POST" as const,
      url,
      headers: goodHeaders(),
      payload: body(n),
    }));
  const poisonKeys: fc.Arbitrary<Req> = fc
    .constantFrom(
      '{"processKey":"pk","vars":{"__proto__":{"admin":true}}}',
      '{"processKey":"pk","vars":{"\\u005f_proto__":1}}',
      '{"processKey":"pk","vars":{"constructor":{"prototype":{"x":1}}}}',
      '{"__proto__":{},"processKey":"pk"}',
    )
    .map((payload) => ({
      method: "POST" as const,
      url: "/v1/processes",
      headers: goodHeaders(),
      payload,
    }));

  /** Paths that are not valid percent-encoded UTF-8, or ids far over the router's limit. */
  const badPath: fc.Arbitrary<Req> = fc.oneof(
    fc
      .tuple(
        fc.constantFrom("/v1/tasks/", "/v1/instances/", "/v1/runs/", "/v1/definitions/"),
        fc.constantFrom("%", "%Z1", "%E0%A4%A", "%FF", "%C0%AF", "%ED%A0%80", "a%2", "%%"),
      )
      .map(([p, bad]) => ({ method: "GET" as const, url: `${p}x${bad}`, headers: goodHeaders() })),
    fc
      .tuple(
        fc.constantFrom("/v1/tasks/", "/v1/instances/", "/v1/runs/"),
        fc.integer({ min: 385, max: 12_000 }),
      )
      .map(([p, n]) => ({
        method: "GET" as const,
        url: p + "i".repeat(n),
        headers: goodHeaders(),
      })),
  );

  const anyBad = fc.oneof(
    { weight: 2, arbitrary: hostileText },
    { weight: 2, arbitrary: badNumbers },
    { weight: 1, arbitrary: poisonKeys },
    { weight: 2, arbitrary: badPath },
    { weight: 4, arbitrary: badWrite },
    { weight: 3, arbitrary: badHeaders },
    { weight: 2, arbitrary: wrongActor },
    { weight: 2, arbitrary: malformedBody },
    { weight: 2, arbitrary: badQuery },
    { weight: 1, arbitrary: badEnum },
    { weight: 2, arbitrary: badRead },
  );

  return { anyBad, oversized };
}

/** Requests only a raw socket sends: oversized headers, malformed request lines, CONNECT. */
function rawRequests(): fc.Arbitrary<string> {
  const tail = `Host: x\r\nX-API-Key: ${KEY}\r\nX-Actor-Id: bob\r\n`;
  const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);
  const oversizedHeaders = fc
    .tuple(
      fc.constantFrom("GET /healthz", "GET /v1/tasks", "POST /v1/processes"),
      fc.array(fc.tuple(headerName, fc.integer({ min: 1_000, max: 9_000 })), {
        minLength: 3,
        maxLength: 8,
      }),
    )
    .filter(([, hs]) => hs.reduce((n, [k, len]) => n + k.length + len, 0) > 17_000)
    .map(
      ([line, hs]) =>
        `${line} HTTP/1.1\r\n${tail}${hs.map(([k, n]) => `X-${k}: ${"v".repeat(n)}\r\n`).join("")}\r\n`,
    );
  const badLine = fc.oneof(
    fc.constantFrom(
      "GARBAGE\r\n\r\n",
      "GET\r\n\r\n",
      "GET /healthz HTTP/9.9\r\n\r\n",
      "GET /healthz HTTP/1.1 extra\r\n\r\n",
      "G\u0000T /healthz HTTP/1.1\r\n\r\n",
      "GET /he\u0000lthz HTTP/1.1\r\n\r\n",
      "GET /v1/tasks HTTP/1.1\r\nBad Header\r\n\r\n",
      "GET /v1/tasks HTTP/1.1\r\nX-A: a\u0000b\r\n\r\n",
      "POST /v1/processes HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
      "POST /v1/processes HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "POST /v1/processes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      `POST /v1/processes HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nX-Actor-Id: bob\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nQ\r\n`,
      "GET /healthz HTTP/1.1\r\n\r\n",
      "FOO /healthz HTTP/1.1\r\n\r\n",
    ),
    fc
      .string({ minLength: 1, maxLength: 40 })
      // "GET /x" alone is an HTTP/0.9 request line, which Node accepts: not malformed.
      .filter((s) => !/^[A-Z]+ /.test(s) && !s.includes("\n"))
      .map((s) => `${s}\r\n\r\n`),
  );
  const connect = fc
    .constantFrom("example.com:443", "127.0.0.1:22", "[::1]:80")
    .map((t) => `CONNECT ${t} HTTP/1.1\r\nHost: ${t}\r\n\r\n`);
  return fc.oneof(oversizedHeaders, badLine, connect);
}

function assertProblemAnswer(what: string, status: number, type: string, body: string) {
  assert.ok(status >= 400 && status < 500, `${what} → ${status} ${body.slice(0, 300)}`);
  assert.match(type, /^application\/problem\+json/, `${what}: content-type ${type}`);
  const p = JSON.parse(body) as { code: string; status: number };
  assert.ok(CODES.includes(p.code), `${what}: code ${p.code}`);
  assert.equal(p.status, status, `${what}: body status`);
}

function suite(b: Backend) {
  describe(`bad requests on ${b.name}`, async () => {
    const options = await backendTestOptions(b);

    it(
      `${RUNS[b.name]} generated bad requests and ${RAW_RUNS} raw ones: every answer a 4xx problem+json, no row changes`,
      options,
      async () => {
        const db = await createTestDatabase(b);
        const config = loadConfig({
          env: {},
          overrides: {
            databaseUrl: db.url,
            apiKeys: [KEY],
            nodeEnv: "production",
            logLevel: "silent",
            addr: "127.0.0.1:0",
            users: "alice,bob,carol",
            groups: { clerks: "bob,carol" },
          },
        });
        const app = await createTaskflow(config, { workflows: [idle], worker: { pollMs: 50 } });
        try {
          const port = Number(new URL(await app.listen()).port);
          const seeded = await seed(app);
          const { anyBad, oversized } = generators(seeded);
          const before = await snapshotDatabase(db.url);
          const statuses = new Map<number, number>();
          await fc.assert(
            fc.asyncProperty(anyBad, async (req) => {
              const res = await app.server.inject({
                method: req.method,
                url: req.url,
                headers: req.headers,
                ...(req.payload === undefined ? {} : { payload: req.payload }),
              });
              statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
              assertProblemAnswer(
                `${req.method} ${req.url.slice(0, 200)} ${String(req.payload).slice(0, 200)}`,
                res.statusCode,
                String(res.headers["content-type"]),
                res.body,
              );
              // Nothing of a refused path comes back (the router's own answer echoed all 10 KB of it).
              assert.ok(res.body.length < 1000, `answer of ${res.body.length} bytes`);
            }),
            { numRuns: RUNS[b.name], ...seedOption() },
          );
          // Oversized bodies are slow to generate; a handful of them is enough on top.
          for (let i = 0; i < 3; i++) {
            const req = fc.sample(oversized, 1)[0]!;
            const res = await app.server.inject({
              method: req.method,
              url: req.url,
              headers: req.headers,
              payload: req.payload!,
            });
            assert.equal(res.statusCode, 413);
            assert.equal(res.json<{ code: string }>().code, "TooLarge");
          }
          await fc.assert(
            fc.asyncProperty(rawRequests(), async (head) => {
              const a: RawAnswer = await rawExchange(port, head, { timeoutMs: 3000 });
              statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
              assert.ok(
                a.status !== 0,
                `no answer to ${JSON.stringify(head.slice(0, 120))}: ${a.error ?? a.body.slice(0, 100)}`,
              );
              assertProblemAnswer(
                JSON.stringify(head.slice(0, 120)),
                a.status,
                a.headers["content-type"] ?? "",
                a.body,
              );
            }),
            { numRuns: RAW_RUNS, ...seedOption() },
          );
          assert.equal(
            await snapshotDatabase(db.url),
            before,
            "no generated bad request changed the database",
          );
          // The generators must actually reach the different error classes, or the property says little.
          for (const s of [400, 401, 403, 404, 431])
            assert.ok((statuses.get(s) ?? 0) > 5, `status ${s} seen ${statuses.get(s) ?? 0} times`);
        } finally {
          await app.close();
          await db.drop();
        }
      },
    );
  });
}

for (const b of backends) suite(b);
