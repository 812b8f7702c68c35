/**
 * Property (issue 21, the JSON Schema half): definitions carrying generated
 * JSON Schemas — nested applicators, hostile patterns and formats, references
 * and cycles, unknown keywords, other drafts, and the issue's own schemas
 * (491 KB of nested anyOf, 6,000 patterned properties, a self-referencing
 * $dynamicRef, references doubling at each step) — as `vars` and as a form.
 * Each is validated; a valid one is published, started with generated vars
 * (backtracking bait among them) and its task completed. Every answer is a
 * 2xx or a 4xx problem, never a 5xx or a hang, and /healthz on a fresh
 * connection answers within a second throughout.
 *
 * The server runs in this process (SQLite), so the prober's delay includes
 * any stall of the server's event loop; the loop's own delay is measured too.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import { startSqliteTaskflow, type SqliteNode } from "../support/sqlite-taskflow.ts";

const KEY = "schema-prop-key-0123456789abcdefghij";
const RUNS = 60;
const HEALTH_WITHIN_MS = 1_000;
const seedOption = () => (process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {});

let tf: Taskflow;
let port = 0;
let node: SqliteNode | undefined;

before(async () => {
  node = await startSqliteTaskflow(KEY);
  tf = node.tf;
  port = Number(new URL(await tf.server.listen({ host: "127.0.0.1", port: 0 })).port);
});

after(async () => {
  await node?.close();
});

interface Answer {
  status: number;
  type: string;
  body: unknown;
}

function request(method: string, path: string, body?: unknown, actor = "alice"): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        timeout: 30_000,
        headers: {
          "x-api-key": KEY,
          "x-actor-id": actor,
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers["content-type"] ?? ""),
            body: text === "" ? undefined : (JSON.parse(text) as unknown),
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** GET /healthz on a new connection, as a load balancer asks. */
function freshHealth(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(performance.now() - t0));
    });
    req.on("error", () => resolve(Number.POSITIVE_INFINITY));
  });
}

/** A 2xx, or a 4xx problem+json with a code; what the property allows. */
function assertAnswered(what: string, a: Answer): void {
  assert.ok(a.status < 500, `${what}: ${a.status} ${JSON.stringify(a.body).slice(0, 400)}`);
  if (a.status >= 400) {
    assert.match(a.type, /application\/problem\+json/, what);
    assert.equal(typeof (a.body as { code?: unknown }).code, "string", what);
  }
}

// --- the schemas -----------------------------------------------------------------------

const PATTERNS = [
  "^(a+)+$",
  "(a|aa)+$",
  "^(\\w+\\s?)*$",
  "^([a-z]+)*[0-9]$",
  "(?=a)a",
  "(a)\\1",
  "[",
  "a{1000}{1000}",
  "^[a-z]+$",
];
const FORMATS = ["email", "url", "uri", "hostname", "duration", "date-time", "regex", "nope"];
const ODD: unknown[] = [
  { $dynamicAnchor: "x", $dynamicRef: "#x" },
  { $dynamicAnchor: "n", type: "object", properties: { child: { $dynamicRef: "#n" } } },
  { $ref: "#" },
  { $ref: "#/$defs/missing" },
  { $ref: "https://example.com/s.json" },
  { $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" },
  { $defs: { a: { type: "string" } }, properties: { x: { $ref: "#/$defs/a" } } },
  { requried: ["a"] },
  { type: "strnig" },
  { $schema: "http://json-schema.org/draft-07/schema#" },
  { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
  { enum: [] },
  { type: "array", uniqueItems: true, maxItems: 100 },
  { format: "email" },
];

const { schema } = fc.letrec((tie) => ({
  schema: fc.oneof({ depthSize: "small" }, tie("leaf"), tie("node")),
  leaf: fc.oneof(
    fc.record(
      {
        type: fc.constantFrom("string", "number", "integer", "boolean", "object", "array", "null"),
      },
      { requiredKeys: [] },
    ),
    fc.record({ type: fc.constant("string"), pattern: fc.constantFrom(...PATTERNS) }),
    fc.record({ type: fc.constant("string"), format: fc.constantFrom(...FORMATS) }),
    fc.constantFrom<unknown>(true, false, {}, ...ODD),
  ),
  node: fc.oneof(
    fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(fc.constantFrom("a", "b", "s", "n", "x"), tie("schema"), {
        maxKeys: 4,
      }),
      required: fc.uniqueArray(fc.constantFrom("a", "b", "s"), { maxLength: 3 }),
    }),
    fc.record({
      patternProperties: fc.dictionary(fc.constantFrom(...PATTERNS), tie("schema"), {
        maxKeys: 2,
      }),
    }),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie("schema") }),
    fc.record({ type: fc.constant("array"), items: tie("schema") }),
  ),
}));

/** The schemas, built once (the biggest is 491 KB). */
function giants(): unknown[] {
  let anyOf: unknown = { type: "string" };
  for (let i = 0; i < 12; i++) {
    const wide = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, j) => [`f${i}_${j}`, { type: "number", minimum: j }]),
    );
    anyOf = { anyOf: [anyOf, { type: "object", properties: wide }] };
  }
  const props = (n: number, f: (i: number) => unknown) => ({
    type: "object",
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, f(i)])),
  });
  const doubling: Record<string, unknown> = { a0: { type: "string" } };
  for (let i = 1; i <= 30; i++) {
    doubling[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i - 1}` }, { $ref: `#/$defs/a${i - 1}` }] };
  }
  return [
    anyOf,
    props(6_000, (i) => ({ type: "string", pattern: `^a${i}$` })),
    // Just within the limits: the most a definition may make the engine compile.
    props(499, (i) => ({ type: "string", minLength: i })),
    props(900, () => ({})),
    { $defs: doubling, $ref: "#/$defs/a30" },
  ];
}

const value = fc.oneof(
  fc.constantFrom<unknown>(
    `${"a".repeat(40)}!`,
    "a".repeat(40),
    `${"ab".repeat(30)}1`,
    "",
    true,
    false,
    0,
    -1,
    1e9,
    null,
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
);
const vars = fc.dictionary(fc.constantFrom("a", "b", "s", "n", "x", "p0"), value, { maxKeys: 4 });

interface Case {
  vars: unknown;
  form: unknown;
  start: Record<string, unknown>;
  complete: Record<string, unknown>;
}

let counter = 0;

function definitionOf(c: Case, key: string): Record<string, unknown> {
  const doc: Record<string, unknown> = { key, name: key, start: "done", states: {} };
  if (c.vars !== undefined) doc["vars"] = c.vars;
  doc["states"] =
    c.form === undefined
      ? { done: { type: "end" } }
      : {
          task: {
            type: "userTask",
            assignee: { user: "bob" },
            title: "t",
            form: c.form,
            next: "done",
          },
          done: { type: "end" },
        };
  if (c.form !== undefined) doc["start"] = "task";
  return doc;
}

async function taskOf(instanceId: string): Promise<string | undefined> {
  const end = Date.now() + 5_000;
  while (Date.now() < end) {
    const list = await request("GET", "/v1/tasks?user=bob&limit=500", undefined, "bob");
    const items = (list.body as { items?: { id: string; rootInstanceId: string }[] }).items ?? [];
    const found = items.find((t) => t.rootInstanceId === instanceId);
    if (found !== undefined) return found.id;
    await sleep(20);
  }
  return undefined;
}

async function play(c: Case): Promise<void> {
  const key = `schema-prop-${++counter}`;
  const doc = definitionOf(c, key);
  const v = await request("POST", "/v1/definitions/validate", doc);
  assertAnswered("validate", v);
  if (v.status !== 200) {
    assert.equal(v.status, 400, JSON.stringify(v.body).slice(0, 400));
    return;
  }
  const p = await request("POST", `/v1/definitions/${key}/publish`, doc);
  assertAnswered("publish", p);
  assert.equal(p.status, 201, `valid, then a publish of ${p.status}`);
  const s = await request("POST", "/v1/processes", { processKey: key, vars: c.start });
  assertAnswered("start", s);
  if (s.status !== 201 || c.form === undefined) return;
  const taskId = await taskOf((s.body as { instanceId: string }).instanceId);
  assert.ok(taskId !== undefined, `no task for the run of ${key}`);
  const done = await request("POST", `/v1/tasks/${taskId}/complete`, { vars: c.complete }, "bob");
  assertAnswered("complete", done);
}

void describe("generated JSON Schemas in definitions", () => {
  test(`${RUNS} definitions and the issue's schemas: never a 5xx, /healthz within 1 s`, async () => {
    const bigOnes = giants();
    const stop = { set: false };
    const probes: number[] = [];
    const prober = (async () => {
      while (!stop.set) {
        probes.push(await freshHealth());
        await sleep(50);
      }
    })();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    try {
      const examples: [Case][] = bigOnes.flatMap((g): [Case][] => [
        [{ vars: g, form: undefined, start: {}, complete: {} }],
        [{ vars: undefined, form: g, start: {}, complete: {} }],
      ]);
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            vars: fc.option(schema, { nil: undefined }),
            form: fc.option(schema, { nil: undefined }),
            start: vars,
            complete: vars,
          }),
          play,
        ),
        { numRuns: RUNS, examples, ...seedOption() },
      );
    } finally {
      stop.set = true;
      await prober;
      loop.disable();
    }
    const slowest = Math.max(...probes);
    const stalled = loop.max / 1e6;
    // What a reader of a failure wants to see: how long health and the loop took.
    console.log(
      `healthz: ${probes.length} probes, slowest ${Math.round(slowest)} ms; event loop delay max ${Math.round(stalled)} ms`,
    );
    // The prober ran throughout (10–14 probes on a loaded machine); not a bound on speed.
    assert.ok(probes.length > 3, `only ${probes.length} probes`);
    assert.ok(slowest < HEALTH_WITHIN_MS, `a /healthz took ${Math.round(slowest)} ms`);
    assert.ok(stalled < HEALTH_WITHIN_MS, `the event loop stalled ${Math.round(stalled)} ms`);
  });
});
