/**
 * Property: no generated bad request gets a 5xx or changes any row.
 *
 * Each request carries at least one defect that must stop it (missing or
 * malformed headers, wrong key, malformed JSON, wrong types, unknown enum
 * values, over-long ids, oversized bodies, bad paging, unknown ids, or an actor
 * without the right to act). After ≥ 1,000 of them the database must be byte
 * for byte what it was.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import fc from "fast-check";
import { ErrorCodes } from "../../src/domain/errors.ts";
import { createTaskflow } from "../../src/create-taskflow.ts";
import { loadConfig } from "../../src/config/index.ts";
import { decodeCursor } from "../../src/server/pagination.ts";
import { createTestDatabase } from "../support/backends.ts";

function isCursor(c: string): boolean {
  try {
    decodeCursor(c);
    return true;
  } catch {
    return false;
  }
}

const KEY = "prop-key";
const CODES: readonly string[] = ErrorCodes; // the 4xx catalogue: "Internal" (500) must never appear

type App = Awaited<ReturnType<typeof createTaskflow>>;
let app: App;
let dbPath: string;
let drop: () => Promise<void>;
const seeded = { root: "", userTask: "", groupTask: "", referral: "" };

before(async () => {
  const db = await createTestDatabase({ name: "sqlite" });
  drop = () => db.drop();
  dbPath = db.url.replace(/^sqlite:/, "");
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [KEY],
      nodeEnv: "production",
      logLevel: "silent",
      users: "alice,bob,carol",
      groups: { clerks: "bob,carol" },
    },
  });
  app = await createTaskflow(config);
  const h = { "x-api-key": KEY, "x-actor-id": "alice" };
  const p = (
    await app.server.inject({
      method: "POST",
      url: "/v1/processes",
      headers: h,
      payload: { processKey: "prop" },
    })
  ).json();
  seeded.root = p.instanceId;
  const u = (
    await app.server.inject({
      method: "POST",
      url: "/v1/assignments",
      headers: h,
      payload: { parentInstanceId: p.instanceId, assignee: { kind: "user", id: "bob" } },
    })
  ).json();
  seeded.userTask = u.task.id;
  seeded.referral = u.instanceId;
  const g = (
    await app.server.inject({
      method: "POST",
      url: "/v1/assignments",
      headers: h,
      payload: { parentInstanceId: p.instanceId, assignee: { kind: "group", id: "clerks" } },
    })
  ).json();
  seeded.groupTask = g.task.id;
  assert.ok(seeded.userTask && seeded.groupTask, "seed data created");
});

after(async () => {
  await app?.close();
  await drop?.();
});

function snapshot(): string {
  const db = new Database(dbPath, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all() as { name: string }[];
    return JSON.stringify(
      tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()]),
    );
  } finally {
    db.close();
  }
}

interface Req {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

const json = (v: unknown) => JSON.stringify(v);

/** Built after the seed data exists: several generators aim at the seeded task ids. */
function generators() {
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

  const anyBad = fc.oneof(
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

test("1,200 generated bad requests: every answer is a 4xx problem+json and no row changes", async () => {
  const { anyBad, oversized } = generators();
  const before = snapshot();
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
      assert.ok(
        res.statusCode >= 400 && res.statusCode < 500,
        `${req.method} ${req.url} → ${res.statusCode} ${res.body.slice(0, 300)}`,
      );
      assert.match(String(res.headers["content-type"]), /^application\/problem\+json/);
      const body = res.json<{ code: string; status: number; title: string }>();
      assert.ok(CODES.includes(body.code), `code ${body.code}`);
      assert.equal(body.status, res.statusCode);
    }),
    // FC_SEED replays a failing run (fast-check prints the seed of every failure).
    { numRuns: 1200, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
  );
  // Oversized bodies are slow to generate; a handful of them is enough on top.
  for (let i = 0; i < 5; i++) {
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
  assert.equal(snapshot(), before, "no generated bad request changed the database");
  // The generator must actually reach the different error classes, or the property says little.
  for (const s of [400, 401, 403, 404])
    assert.ok((statuses.get(s) ?? 0) > 10, `status ${s} seen ${statuses.get(s) ?? 0} times`);
});
