/**
 * The /v1/definitions version routes end to end (real engine, `inject`), on every
 * deployment of test/support/deployment.ts (one SQLite node; two MariaDB nodes):
 * JSON and YAML bodies, every finding in `errors[]`, the actor as author, and
 * a fuzz of ≥ 1,000 bad bodies that must each be a 4xx and write nothing.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { definitionSchema } from "../../src/engine/definitions/definition-schema.ts";
import { expenseApproval, minimal } from "../support/definition-fixtures.ts";
import { mutatedDefinition } from "../support/definition-mutations.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "e2e-key-0123456789abcdefghijkl";

for (const kind of deployments) {
  void describe(`definition versions on ${kind.name}`, async () => {
    const options = await kind.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let deployment: Deployment;

    before(async () => {
      deployment = await kind.start({
        apiKeys: [KEY],
        logLevel: "silent",
        rateLimit: false,
        // The fuzz runs a thousand validations back to back on synchronous SQLite: the loop
        // is busy by design here, and shedding is tested in overload.test.ts.
        maxEventLoopDelay: 0,
      });
    });

    after(async () => {
      await deployment?.close();
    });

    type Json = Record<string, any>;

    async function call(
      method: "GET" | "POST" | "PUT",
      url: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: Json; type: string }> {
      const r = await deployment.inject({
        method,
        url,
        headers: { "x-api-key": KEY, "x-actor-id": "alice", ...headers },
        ...(body === undefined
          ? {}
          : typeof body === "string"
            ? { payload: body }
            : { payload: body as object }),
      });
      let parsed: Json;
      try {
        parsed = r.json();
      } catch {
        parsed = { raw: r.body };
      }
      return { status: r.statusCode, body: parsed, type: String(r.headers["content-type"]) };
    }

    void describe("definition versions over HTTP", () => {
      test("GET /v1/definitions/schema is the published JSON Schema", async () => {
        const r = await call("GET", "/v1/definitions/schema");
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, JSON.parse(JSON.stringify(definitionSchema)));
      });

      test("/openapi.json documents the routes with summaries and examples", async () => {
        const r = await deployment.inject({ method: "GET", url: "/openapi.json" });
        assert.equal(r.statusCode, 200);
        const paths = r.json<Json>().paths as Json;
        for (const [path, method] of [
          ["/v1/definitions/schema", "get"],
          ["/v1/definitions/validate", "post"],
          ["/v1/definitions/{key}/draft", "put"],
          ["/v1/definitions/{key}/publish", "post"],
          ["/v1/definitions/{key}/versions/{version}/retract", "post"],
          ["/v1/definitions/{key}/versions", "get"],
          ["/v1/definitions/{key}/versions/{version}", "get"],
          ["/v1/definitions/{key}/diff", "get"],
        ] as const) {
          const op = paths[path]?.[method] as Json | undefined;
          assert.ok(op, `${method} ${path}`);
          assert.ok(op.summary && op.description, `${method} ${path}: summary and description`);
          const ok = Object.entries(op.responses as Json).find(([s]) => s.startsWith("2"));
          assert.ok(ok?.[1].content["application/json"].example, `${method} ${path}: an example`);
        }
      });

      test("validate: 200 for a valid one, saying what was not checked", async () => {
        const r = await call("POST", "/v1/definitions/validate", minimal());
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { valid: true, notChecked: ["definitions"] });
        // Its code steps and workflow: no worker serves them here.
        const code = await call("POST", "/v1/definitions/validate", expenseApproval());
        assert.equal(code.status, 400);
        const reasons = (code.body as { errors: { reason: string }[] }).errors.map((e) => e.reason);
        for (const name of ["check-budget", "charge-card", "send-receipt"]) {
          assert.ok(
            reasons.some((r) => r.includes(`'${name}'`)),
            `${name}: ${reasons.join("; ")}`,
          );
        }
      });

      test("validate: 400 problem+json with every finding at its pointer", async () => {
        const bad = minimal();
        bad.states.review.next = "nowhere";
        bad.states.review.title = "Hi {{ vars. }}";
        bad.states.extra = {
          type: "choice",
          choices: [{ when: "(", next: "extra" }],
          otherwise: "extra",
        };
        const r = await call("POST", "/v1/definitions/validate", bad);
        assert.equal(r.status, 400);
        assert.match(r.type, /application\/problem\+json/);
        assert.equal(r.body.code, "Validation");
        assert.deepEqual(
          r.body.errors.map((e: Json) => e.pointer),
          [
            "/states/end",
            "/states/extra",
            "/states/extra",
            "/states/extra/choices/0/when",
            "/states/review/next",
            "/states/review/title",
          ],
        );
        assert.ok(
          r.body.errors.every((e: Json) => typeof e.reason === "string" && e.reason !== ""),
        );
      });

      test("draft in YAML, then publish it: 201 with the version; the author is X-Actor-Id", async () => {
        const yaml = stringify(minimal("yaml-one"));
        const saved = await call("PUT", "/v1/definitions/yaml-one/draft", yaml, {
          "content-type": "application/yaml",
          "x-actor-id": "bob",
        });
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
        assert.equal(saved.body.status, "draft");
        assert.equal(saved.body.createdBy, "bob");
        const pub = await call("POST", "/v1/definitions/yaml-one/publish");
        assert.equal(pub.status, 201, JSON.stringify(pub.body));
        assert.deepEqual(pub.body, { key: "yaml-one", version: 1 });
        const got = await call("GET", "/v1/definitions/yaml-one/versions/latest");
        assert.equal(got.body.version, 1);
        assert.equal(got.body.createdBy, "alice");
        assert.equal(got.body.definition.name, "Minimal");
        // The plain definition exists for the inbox routes too.
        const plain = await call("GET", "/v1/definitions/yaml-one");
        assert.equal(plain.status, 200);
        assert.equal(plain.body.name, "Minimal");
      });

      test("bad YAML is a 400 with errors; YAML elsewhere stays a 415", async () => {
        const r = await call("PUT", "/v1/definitions/y/draft", "a: [1,\n", {
          "content-type": "application/yaml",
        });
        assert.equal(r.status, 400);
        assert.ok(Array.isArray(r.body.errors) && r.body.errors.length > 0);
        const other = await call("POST", "/v1/processes", "processKey: x", {
          "content-type": "application/yaml",
        });
        assert.equal(other.status, 415);
      });

      test("publish a body, list, get, diff, retract", async () => {
        const one = await call("POST", "/v1/definitions/flow/publish", minimal("flow"));
        assert.deepEqual(one.body, { key: "flow", version: 1 });
        const changed = minimal("flow");
        changed.states.review.due = "P2D";
        assert.equal((await call("POST", "/v1/definitions/flow/publish", changed)).body.version, 2);
        const list = await call("GET", "/v1/definitions/flow/versions");
        assert.deepEqual(
          list.body.items.map((v: Json) => [v.version, v.status]),
          [
            [1, "published"],
            [2, "published"],
          ],
        );
        const diff = await call("GET", "/v1/definitions/flow/diff?from=1&to=2");
        assert.equal(diff.status, 200);
        // Every stored body carries its own number: /version is no change of the definition.
        assert.deepEqual(diff.body.changes, [
          { pointer: "/states/review/due", op: "add", to: "P2D" },
        ]);
        const retracted = await call("POST", "/v1/definitions/flow/versions/2/retract");
        assert.equal(retracted.status, 200);
        assert.equal(retracted.body.status, "retracted");
        assert.equal((await call("GET", "/v1/definitions/flow/versions/latest")).body.version, 1);
      });

      test("publishing the head's definition again is 200 unchanged: no new version", async () => {
        const doc = minimal("same");
        assert.equal((await call("POST", "/v1/definitions/same/publish", doc)).status, 201);
        const again = await call("POST", "/v1/definitions/same/publish", doc);
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.deepEqual(again.body, { key: "same", version: 1, unchanged: true });
        // Key order is no change either: the diff compares objects key by key.
        const reordered = Object.fromEntries(Object.entries(doc).reverse());
        const third = await call("POST", "/v1/definitions/same/publish", reordered);
        assert.deepEqual([third.status, third.body.version], [200, 1]);
        // Racing equal publishes compare in the publish's transaction: one new version.
        const changed = minimal("same");
        changed.states.review.due = "P3D";
        const raced = await Promise.all(
          [0, 1, 2, 3].map(() => call("POST", "/v1/definitions/same/publish", changed)),
        );
        assert.deepEqual(raced.map((r) => r.status).sort(), [200, 200, 200, 201]);
        assert.ok(raced.every((r) => r.body.version === 2));
        // A draft equal to the head: unchanged, and the draft is consumed as a publish would.
        assert.equal((await call("PUT", "/v1/definitions/same/draft", changed)).status, 200);
        const fromDraft = await call("POST", "/v1/definitions/same/publish");
        assert.deepEqual([fromDraft.status, fromDraft.body.unchanged], [200, true]);
        assert.equal((await call("GET", "/v1/definitions/same/versions/draft")).status, 404);
        const list = await call("GET", "/v1/definitions/same/versions");
        assert.deepEqual(
          list.body.items.map((v: Json) => v.version),
          [1, 2],
        );
        // Against the head `latest` names: once 2 is retracted, its definition is new again.
        assert.equal((await call("POST", "/v1/definitions/same/versions/2/retract")).status, 200);
        const back = await call("POST", "/v1/definitions/same/publish", changed);
        assert.deepEqual([back.status, back.body.version], [201, 3]);
      });

      test("the key in the body must be the key in the path", async () => {
        const r = await call("POST", "/v1/definitions/other/publish", minimal("flow2"));
        assert.equal(r.status, 400);
        assert.deepEqual(r.body.errors[0], {
          pointer: "/key",
          reason: "must be the key in the path ('other')",
        });
      });

      test("unknown key, version and draft are 404; a bad version is 400; no actor is 400", async () => {
        assert.equal((await call("GET", "/v1/definitions/none/versions")).status, 404);
        assert.equal((await call("GET", "/v1/definitions/flow/versions/99")).status, 404);
        assert.equal((await call("GET", "/v1/definitions/flow/versions/x1")).status, 400);
        assert.equal((await call("POST", "/v1/definitions/none/publish")).status, 404);
        assert.equal((await call("GET", "/v1/definitions/flow/diff?from=1")).status, 400);
        const r = await deployment.inject({
          method: "POST",
          url: "/v1/definitions/flow/publish",
          headers: { "x-api-key": KEY },
          payload: minimal("flow"),
        });
        assert.equal(r.statusCode, 400);
      });

      // The validator under fuzz is the same code on every node: 1,100 bodies on one node; on
      // two nodes, 150 check that no node writes anything, and keep the CI time small.
      const fuzzRuns = kind.nodeCount === 1 ? 1100 : 150;
      test(`${fuzzRuns} bad bodies: always a 4xx problem, never a 500, nothing written`, async () => {
        const countVersions = async () => {
          let n = 0;
          for (const key of ["fuzz", "flow", "yaml-one"]) {
            const r = await call("GET", `/v1/definitions/${key}/versions`);
            n += r.status === 200 ? r.body.items.length : 0;
          }
          return n;
        };
        const before = await countVersions();
        const routes = [
          ["PUT", "/v1/definitions/fuzz/draft"],
          ["POST", "/v1/definitions/fuzz/publish"],
          ["POST", "/v1/definitions/validate"],
        ] as const;
        const body = fc.oneof(
          { weight: 6, arbitrary: mutatedDefinition("fuzz").map((d) => ({ json: d })) },
          { weight: 1, arbitrary: fc.jsonValue().map((d) => ({ json: d })) },
          { weight: 1, arbitrary: fc.string().map((t) => ({ raw: t, type: "application/json" })) },
          { weight: 1, arbitrary: fc.string().map((t) => ({ raw: t, type: "application/yaml" })) },
          {
            weight: 1,
            arbitrary: mutatedDefinition("fuzz").map((d) => ({
              raw: stringify(d),
              type: "application/yaml",
            })),
          },
        );
        let runs = 0;
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, url], b) => {
            runs++;
            const isObject =
              "json" in b &&
              typeof b.json === "object" &&
              b.json !== null &&
              !Array.isArray(b.json);
            const r =
              "json" in b
                ? await call(method, url, JSON.stringify(b.json), {
                    "content-type": "application/json",
                  })
                : await call(method, url, b.raw, { "content-type": b.type });
            assert.ok(
              r.status >= 400 && r.status < 500,
              `${method} ${url} → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`,
            );
            assert.match(r.type, /application\/problem\+json/);
            if (isObject && r.status === 400 && url !== "/v1/definitions/fuzz/publish") {
              // A definition refused by the validator says where: errors[], each with a pointer.
              if (r.body.errors)
                assert.ok(r.body.errors.every((e: Json) => typeof e.pointer === "string"));
            }
          }),
          { numRuns: fuzzRuns, seed: 20261201 },
        );
        assert.ok(runs >= fuzzRuns);
        assert.equal(await countVersions(), before, "no bad body wrote a version or a draft");
      });
    });
  });
}
