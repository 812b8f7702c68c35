/**
 * Version pinning on every backend: 100 runs started on v1 (they wait on a
 * timer), v2 published with other states, then every v1 run finishes on v1's
 * states and new starts run v2.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- run outputs are untyped JSON */
import assert from "node:assert/strict";
import { test } from "node:test";
import { registerStep } from "../../src/engine/definitions/interpreter/step-registry.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { interpreterOn, TENANT } from "./support/interpreter-env.ts";

const STARTED_ON_V1 = 100;
const actor = { tenantId: TENANT, actorId: "alice" };

registerStep("pin-mark", (input: any) => ({ ran: input.v }));

const v1 = {
  key: "pinned",
  name: "Pinned",
  start: "wait",
  states: {
    wait: { type: "timer", duration: "1h", next: "mark" },
    mark: { type: "call", step: "pin-mark", input: "{ 'v': 1 }", resultVar: "mark", next: "e" },
    e: { type: "end" },
  },
};
const v2 = {
  key: "pinned",
  name: "Pinned",
  start: "first",
  states: {
    first: { type: "call", step: "pin-mark", input: "{ 'v': 2 }", resultVar: "mark", next: "done" },
    done: { type: "end" },
  },
};

for (const b of backends) {
  test(
    `runs stay on the version they started on (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const env = await interpreterOn(b);
      try {
        const node = env.node;
        assert.equal(await env.publish(v1), 1);
        const old: string[] = [];
        for (let i = 0; i < STARTED_ON_V1; i++) {
          const s = await node.start(actor, { key: "pinned", vars: { i } });
          assert.equal(s.version, 1);
          old.push(s.runId);
        }
        const first = await env.h.drain(1_000);
        assert.equal(first.length, STARTED_ON_V1);
        assert.ok(first.every((o) => o === "waiting"));
        assert.equal(await env.publish(v2), 2);
        const fresh = await node.start(actor, { key: "pinned", vars: { i: -1 } });
        assert.equal(fresh.version, 2);
        const explicit = await node.start(actor, { key: "pinned", version: 1, vars: { i: -2 } });
        assert.equal(explicit.version, 1);
        // Twice: the explicit v1 start reaches its timer only in the first drain.
        for (let i = 0; i < 2; i++) {
          env.h.clock.advance(3_600_000);
          await env.h.drain(1_000);
        }
        for (const id of [...old, explicit.runId]) {
          const r = await env.run(id);
          assert.equal(r.status, "completed", `${id}: ${JSON.stringify(r.error)}`);
          assert.deepEqual((r.output as any).vars.mark, { ran: 1 });
        }
        const r2 = await env.run(fresh.runId);
        assert.deepEqual((r2.output as any).vars.mark, { ran: 2 });
        const p = await env.store.getInstance(TENANT, r2.rootInstanceId!);
        assert.equal(p?.definitionKey, "pinned", "the process shows the definition's key");
      } finally {
        await env.close();
      }
    },
  );
}
