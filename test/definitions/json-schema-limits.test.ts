/**
 * Tenant-supplied JSON Schemas over REST (real engine, SQLite, `inject`): the
 * schemas of issue 21 that blocked the event loop or failed every start are
 * refused at validate and publish with a 400 naming the place, quickly; a
 * backtracking pattern is matched in linear time at start; a version
 * published before these rules (written past the validator) makes its starts
 * a 409 naming the schema, never a 500; and a required checkbox must be ticked.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import type { DefinitionVersionStore } from "../../src/engine/definitions/definition-version-store-port.ts";
import { startSqliteTaskflow, type SqliteNode } from "../support/sqlite-taskflow.ts";

const KEY = "schema-key-0123456789abcdefghij";
let tf: Taskflow;
let node: SqliteNode | undefined;
const actor = { tenantId: "default", actorId: "alice" };

before(async () => {
  node = await startSqliteTaskflow(KEY, { bodyLimit: 4 * 1024 * 1024 });
  tf = node.tf;
});

after(async () => {
  await node?.close();
});

async function call(method: "GET" | "POST", url: string, body?: object, as = "alice") {
  const r = await tf.server.inject({
    method,
    url,
    headers: { "x-api-key": KEY, "x-actor-id": as },
    ...(body === undefined ? {} : { payload: body }),
  });
  return { status: r.statusCode, body: r.json() };
}

const withVars = (key: string, vars: unknown) => ({
  key,
  name: key,
  vars,
  start: "done",
  states: { done: { type: "end" } },
});

/** anyOf nested `levels` deep, each level with a wide alternative. */
function nestedAnyOf(levels: number, width: number): unknown {
  let s: unknown = { type: "string" };
  for (let i = 0; i < levels; i++) {
    const wide = Object.fromEntries(
      Array.from({ length: width }, (_, j) => [`f${i}_${j}`, { type: "number", minimum: j }]),
    );
    s = { anyOf: [s, { type: "object", properties: wide }] };
  }
  return s;
}

const manyProperties = (n: number) => ({
  type: "object",
  properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, {}])),
});

/** The schemas of the issue, and the place each finding names. */
const refused: [string, unknown, RegExp, RegExp][] = [
  // 491 KB of nested anyOf: 18 s to answer before.
  ["491 KB of nested anyOf", nestedAnyOf(12, 1_000), /^\/vars$/, /characters/],
  ["anyOf nested 20 deep", nestedAnyOf(20, 1), /^\/vars\/anyOf/, /deeper than the 32 levels/],
  ["1,500 properties in 12 KB", manyProperties(1_500), /^\/vars$/, /1501 subschemas/],
  [
    "6,000 properties with a pattern",
    {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 6_000 }, (_, i) => [`p${i}`, { type: "string", pattern: `^a${i}$` }]),
      ),
    },
    /^\/vars$/,
    /subschemas|characters/,
  ],
  [
    "a $dynamicRef to its own anchor",
    { $dynamicAnchor: "x", $dynamicRef: "#x" },
    /^\/vars\/\$dynamicRef$/,
    /recursive/,
  ],
  [
    "a $ref cycle through anyOf",
    { $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" },
    /^\/vars\/\$defs\/a\/anyOf\/0\/\$ref$/,
    /recursive/,
  ],
  [
    "references doubling at each step",
    {
      $defs: {
        a0: { type: "string" },
        ...Object.fromEntries(
          Array.from({ length: 30 }, (_, i) => [
            `a${i + 1}`,
            { anyOf: [{ $ref: `#/$defs/a${i}` }, { $ref: `#/$defs/a${i}` }] },
          ]),
        ),
      },
      $ref: "#/$defs/a30",
    },
    /^\/vars$/,
    /unfolded/,
  ],
  [
    "a lookahead pattern",
    { properties: { s: { type: "string", pattern: "^(?=a)a+$" } } },
    /^\/vars\/properties\/s\/pattern$/,
    /RE2/,
  ],
  [
    "a $schema of another draft",
    { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
    /^\/vars\/\$schema$/,
    /no schema with key or ref/,
  ],
];

void describe("JSON Schemas in definitions: limits, RE2, refusal at validate and publish", () => {
  for (const [what, vars, pointer, reason] of refused) {
    test(`${what}: a 400 at validate and publish, within a second`, async () => {
      const started = performance.now();
      const v = await call("POST", "/v1/definitions/validate", withVars("bad", vars));
      const took = performance.now() - started;
      assert.equal(v.status, 400, JSON.stringify(v.body).slice(0, 500));
      assert.equal(v.body.code, "Validation");
      assert.ok(
        v.body.errors.some((e: any) => pointer.test(e.pointer) && reason.test(e.reason)),
        JSON.stringify(v.body.errors).slice(0, 500),
      );
      // Before: 18 s (nested anyOf), 31.9 s (6,000 patterns). Slack for a loaded machine.
      assert.ok(took < 1_000, `validate took ${Math.round(took)} ms`);
      const p = await call("POST", "/v1/definitions/bad/publish", withVars("bad", vars));
      assert.equal(p.status, 400, JSON.stringify(p.body).slice(0, 500));
    });
  }

  test("a definition's schemas together: a compile cost of 2,012 is refused, each alone is fine", async () => {
    const form = (n: number) => ({ ...manyProperties(n), title: `form ${n}` });
    const doc = {
      ...withVars("many", manyProperties(700)),
      start: "a",
      states: {
        a: { type: "userTask", assignee: { user: "bob" }, title: "a", form: form(650), next: "b" },
        b: { type: "userTask", assignee: { user: "bob" }, title: "b", form: form(651), next: "c" },
        // The same form again counts once (it compiles once).
        c: { type: "userTask", assignee: { user: "bob" }, title: "c", form: form(650), next: "d" },
        d: { type: "end" },
      },
    };
    const v = await call("POST", "/v1/definitions/validate", doc);
    assert.equal(v.status, 400, JSON.stringify(v.body).slice(0, 500));
    assert.deepEqual(v.body.errors, [
      {
        pointer: "",
        reason:
          "has JSON Schemas (vars and forms) of a compile cost of 2012 together, more than the 1500 a definition may have",
      },
    ]);
    delete (doc.states as Record<string, unknown>)["b"];
    doc.states.a.next = "c";
    const ok = await call("POST", "/v1/definitions/validate", doc);
    assert.equal(ok.status, 200, JSON.stringify(ok.body).slice(0, 500));
  });

  test("^(a+)+$ in a vars schema: a start with 30 characters answers at once", async () => {
    await tf.definitions.publish(
      actor,
      "evil",
      withVars("evil", {
        type: "object",
        properties: { s: { type: "string", pattern: "^(a+)+$" } },
      }),
    );
    const started = performance.now();
    // 27 characters took 13.5 s on a backtracking engine, each one more doubling it.
    const bad = await call("POST", "/v1/processes", {
      processKey: "evil",
      vars: { s: `${"a".repeat(30)}!` },
    });
    const took = performance.now() - started;
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.errors[0].pointer, "/vars/s");
    assert.ok(took < 1_000, `the start took ${Math.round(took)} ms`);
    const good = await call("POST", "/v1/processes", { processKey: "evil", vars: { s: "aaa" } });
    assert.equal(good.status, 201, JSON.stringify(good.body));
  });

  test("a version published before the rules: every start is a 409 naming the schema", async () => {
    // Written past the validator, as a version published by an older engine would be.
    const store = (tf.definitions as unknown as { store: DefinitionVersionStore }).store;
    const doc = withVars("old", { $dynamicAnchor: "x", $dynamicRef: "#x" });
    const out = await store.publishVersion({
      tenantId: actor.tenantId,
      key: "old",
      name: "old",
      definition: doc,
      createdBy: "alice",
      at: Date.now(),
      consumesDraft: undefined,
      checkHeads: () => undefined,
    });
    assert.equal(out.published, true);
    for (let i = 0; i < 2; i++) {
      const r = await call("POST", "/v1/processes", { processKey: "old", vars: {} });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.match(r.body.detail, /vars schema the engine cannot run.*\/vars\/\$dynamicRef/);
    }
  });

  test("a form the engine no longer runs: the run fails at its userTask naming it, no task is made", async () => {
    const store = (tf.definitions as unknown as { store: DefinitionVersionStore }).store;
    const out = await store.publishVersion({
      tenantId: actor.tenantId,
      key: "old-form",
      name: "old-form",
      definition: {
        key: "old-form",
        name: "old-form",
        start: "t",
        states: {
          t: {
            type: "userTask",
            assignee: { user: "carol" },
            title: "t",
            form: { $dynamicAnchor: "x", $dynamicRef: "#x" },
            next: "done",
          },
          done: { type: "end" },
        },
      },
      createdBy: "alice",
      at: Date.now(),
      consumesDraft: undefined,
      checkHeads: () => undefined,
    });
    assert.equal(out.published, true);
    const r = await call("POST", "/v1/processes", { processKey: "old-form", vars: {} });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // Every task's form is compiled when the task is made: none is left that nobody can complete.
    const failed = await until(async () => {
      const run = await tf.runs.get(actor.tenantId, r.body.runId as string);
      return run?.status === "failed" ? run : undefined;
    });
    assert.match(JSON.stringify(failed.error), /form\/\$dynamicRef/);
    const list = await call("GET", "/v1/tasks?user=carol&status=all");
    const items = list.body.items as { rootInstanceId: string }[];
    assert.deepEqual(
      items.filter((t) => t.rootInstanceId === r.body.instanceId),
      [],
    );
  });

  test("a required checkbox must be ticked; an optional one may be left", async () => {
    await tf.definitions.publish(actor, "revoke", {
      key: "revoke",
      name: "Revoke",
      start: "it",
      states: {
        it: {
          type: "userTask",
          assignee: { user: "bob" },
          title: "Revoke the accounts",
          form: {
            type: "object",
            required: ["accountsRevoked"],
            properties: { accountsRevoked: { type: "boolean" }, badgeKept: { type: "boolean" } },
          },
          next: "done",
        },
        done: { type: "end" },
      },
    });
    const r = await call("POST", "/v1/processes", { processKey: "revoke", vars: {} });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const task = await until(async (): Promise<{ id: string } | undefined> => {
      const list = await call("GET", "/v1/tasks?user=bob");
      const items = list.body.items as { id: string; rootInstanceId: string }[];
      return items.find((t) => t.rootInstanceId === r.body.instanceId);
    });
    const complete = (vars: object) =>
      call("POST", `/v1/tasks/${task.id}/complete`, { vars }, "bob");

    const unticked = await complete({ accountsRevoked: false, badgeKept: false });
    assert.equal(unticked.status, 400, JSON.stringify(unticked.body));
    assert.deepEqual(unticked.body.errors, [
      {
        pointer: "/vars/accountsRevoked",
        reason: "must be ticked: the form requires this checkbox",
      },
    ]);
    const missing = await complete({ badgeKept: true });
    assert.equal(missing.status, 400);
    assert.match(missing.body.errors[0].reason, /required property 'accountsRevoked'/);
    assert.equal((await call("GET", `/v1/tasks/${task.id}`)).body.status, "open");

    const ticked = await complete({ accountsRevoked: true, badgeKept: false });
    assert.equal(ticked.status, 200, JSON.stringify(ticked.body));
  });
});

async function until<T>(f: () => Promise<T | undefined>, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}
