/**
 * Text and numbers that a store cannot keep as sent are refused with a 400
 * naming the place, on every backend, over HTTP and through the engine API;
 * what is accepted reads back exactly as sent.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import { workflow } from "../../src/workflow.ts";
import {
  backends,
  backendTestOptions,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";

const KEY = "hostile-key-0123456789abcdefghijkl";
const headers = { "x-api-key": KEY, "x-actor-id": "alice", "content-type": "application/json" };
const idle = workflow("idle", async (ctx) => ctx.waitForSignal("go"));

/** Raw JSON texts (escapes written out) and the detail each must get. */
const REFUSED: [url: string, body: string, detail: RegExp][] = [
  ["/v1/processes", '{"processKey":"p","name":"a\\u0000b"}', /^name: .*NUL/],
  ["/v1/processes", '{"processKey":"p","vars":{"x":"a\\u0000b"}}', /^vars\.x: .*NUL/],
  ["/v1/processes", '{"processKey":"p","vars":{"k\\u0000":1}}', /^vars\["k\\u0000"\]: key: .*NUL/],
  [
    "/v1/processes",
    '{"processKey":"p","name":"a\\ud800b"}',
    /^name: .*unpaired surrogate \(U\+D800\)/,
  ],
  ["/v1/processes", '{"processKey":"p","vars":{"l":["ok","\\udc00"]}}', /^vars\.l\[1\]: .*U\+DC00/],
  [
    "/v1/processes",
    '{"processKey":"p","vars":{"x":1e309}}',
    /^vars\.x: number 1e309 is out of range$/,
  ],
  [
    "/v1/processes",
    '{"processKey":"p","vars":{"x":-1e309}}',
    /^vars\.x: number -1e309 is out of range$/,
  ],
  [
    "/v1/processes",
    '{"processKey":"p","vars":{"x":1e-400}}',
    /^vars\.x: number 1e-400 is too small/,
  ],
  ["/v1/processes", '{"processKey":"p","vars":{"x":-0}}', /^vars\.x: number -0 is negative zero/],
  [
    "/v1/processes",
    '{"processKey":"p","vars":{"x":[1,9007199254740993]}}',
    /^vars\.x\[1\]: integer 9007199254740993 cannot be kept exactly/,
  ],
  [
    "/v1/processes",
    '{"processKey":"p","vars":{"__proto__":{"a":1}}}',
    /^vars\.__proto__: keys named __proto__ are not accepted$/,
  ],
  [
    "/v1/processes",
    '{"processKey":"p","vars":{"constructor":{"prototype":{}}}}',
    /^vars\.constructor\.prototype: a prototype key inside a constructor key/,
  ],
  ["/v1/workflows/idle/runs", '{"input":{"s":"\\u0000"}}', /^input\.s: .*NUL/],
  ["/v1/workflows/idle/runs", '{"input":[1e400]}', /^input\[0\]: number 1e400 is out of range$/],
];

/** Accepted, and read back unchanged on every store. */
const KEPT = {
  maxSafe: 9007199254740991,
  twoTo53: 9007199254740992,
  big: 1e300,
  tiny: 5e-324,
  neg: -1.5,
  zero: 0,
  emoji: "💥",
  pair: "\ud83d\ude00",
  replacement: "\ufffd",
  control: "\u0001\u001f",
  nested: { "a b": [1, "x", null, true] },
};

function suite(b: Backend) {
  describe(`hostile JSON on ${b.name}`, async () => {
    const options = await backendTestOptions(b);

    it(
      "refuses unstorable text and numbers, names the place, keeps the rest",
      options,
      async () => {
        const db = await createTestDatabase(b);
        const config = loadConfig({
          env: {},
          overrides: { databaseUrl: db.url, apiKeys: [KEY], logLevel: "silent" },
        });
        const tf = await createTaskflow(config, { workflows: [idle], worker: { pollMs: 50 } });
        try {
          for (const [url, payload, detail] of REFUSED) {
            const r = await tf.server.inject({ method: "POST", url, headers, payload });
            assert.equal(r.statusCode, 400, `${payload} → ${r.statusCode} ${r.body}`);
            const p = r.json<{ code: string; detail: string }>();
            assert.equal(p.code, "Validation");
            assert.match(p.detail, detail, payload);
          }
          const started = await tf.server.inject({
            method: "POST",
            url: "/v1/workflows/idle/runs",
            headers,
            payload: { input: KEPT },
          });
          assert.equal(started.statusCode, 201);
          const runId = started.json<{ runId: string }>().runId;
          // A NUL or a lone surrogate in a path parameter (here a signal name) is refused the same way.
          for (const name of ["a%00b", "a%ED%A0%80b"]) {
            const r = await tf.server.inject({
              method: "POST",
              url: `/v1/runs/${runId}/signals/${name}`,
              headers,
              payload: "{}",
            });
            assert.equal(r.statusCode, 400, `${name} → ${r.body}`);
            const p = r.json<{ code: string; detail: string }>();
            assert.equal(p.code, "Validation");
            // Refused at the HTTP boundary, before the engine sees it.
            assert.match(p.detail, /^path parameter name: |not valid percent-encoded/);
          }
          // A body is checked as a whole at the HTTP boundary: the path names the body itself.
          const payload = await tf.server.inject({
            method: "POST",
            url: `/v1/runs/${runId}/signals/go`,
            headers,
            payload: '{"note":["\\ud800"]}',
          });
          assert.equal(payload.statusCode, 400);
          assert.match(payload.json<{ detail: string }>().detail, /^note\[0\]: .*U\+D800/);
          const proc = await tf.server.inject({
            method: "POST",
            url: "/v1/processes",
            headers,
            payload: JSON.stringify({ processKey: "kept", vars: KEPT }),
          });
          assert.equal(proc.statusCode, 201, proc.body);
          const instance = await tf.server.inject({
            url: `/v1/instances/${proc.json<{ instanceId: string }>().instanceId}`,
            headers,
          });
          assert.deepEqual(instance.json<{ vars: unknown }>().vars, KEPT);
          const run = await tf.server.inject({ url: `/v1/runs/${runId}`, headers });
          assert.deepEqual(run.json<{ input: unknown }>().input, KEPT);

          // The engine used as a library refuses the same text.
          const ctx = { tenantId: "default", actorId: "alice" };
          const refused = (e: unknown) => e instanceof TaskflowError && e.code === "Validation";
          await assert.rejects(
            tf.engine.start(ctx, { processKey: "p", name: "a\u0000b" }),
            refused,
          );
          await assert.rejects(tf.engine.start(ctx, { processKey: "a\u0000b" }), refused);
          await assert.rejects(
            tf.engine.start(ctx, { processKey: "p", vars: { x: ["\ud800"] } }),
            refused,
          );
          await assert.rejects(
            tf.runs.start("default", "idle", { input: { "\udc00": 1 }, startedBy: "alice" }),
            refused,
          );
          await assert.rejects(tf.runs.signal("default", runId, "a\u0000b", null), refused);
          await assert.rejects(tf.runs.signal("default", runId, "go", "\ud800"), refused);
        } finally {
          await tf.close();
          await db.drop();
        }
      },
    );
  });
}

for (const b of backends) suite(b);
