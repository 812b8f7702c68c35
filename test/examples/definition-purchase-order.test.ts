/**
 * examples/definitions/purchase-order end to end over REST: the amount-based
 * choice (no approval, the manager, the finance directors), the `charge` code
 * step retried after a failed attempt, a rejection, and a charge that keeps
 * failing (onError).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backendTestOptions } from "../support/backends.ts";
import {
  DEFINITION,
  orderVars,
  purchaseOrders,
} from "../../examples/definitions/purchase-order/scenario.ts";
import { provider } from "../../examples/definitions/purchase-order/steps.ts";
import { exampleBackends, quiet, withExampleApp } from "./support/with-example-app.ts";

/** Order ids unique across the tests of this process: the fake provider is process-wide. */
let seq = 0;
const orderId = (name: string) => `${name}-${++seq}`;

/* eslint-disable @typescript-eslint/no-unsafe-return -- REST bodies are untyped JSON, read by field */

for (const b of exampleBackends) {
  describe(`definition example purchase-order on ${b.name}`, async () => {
    const options = await backendTestOptions(b);

    it(
      "the story: 400 EUR charged at once, 2,500 after mia, 25,000 after a finance director; each charge retried once",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          provider.attempts.clear();
          const runs = await purchaseOrders(app, quiet);
          assert.deepEqual(
            runs.map((r) => [r.status, r.output.vars.orderId, r.output.vars.payment.amount]),
            [
              ["completed", "po-1", 400],
              ["completed", "po-2", 2_500],
              ["completed", "po-3", 25_000],
            ],
          );
          assert.equal(runs[0].output.vars.approval, undefined, "po-1 needed no approval");
          assert.equal(runs[1].output.vars.approval.completedBy, "mia");
          assert.equal(runs[2].output.vars.approval.completedBy, "frank");
          assert.deepEqual(
            [...provider.attempts.values()],
            [2, 2, 2],
            "one failed attempt, then the charge",
          );
          // The failed attempt is in the run's history, then the step's result.
          const history = (await app.call("paul", "GET", `/v1/runs/${runs[0].runId}/history`))
            .items;
          const charge = history.filter((e: { name: string }) => e.name === "charge");
          assert.ok(charge.length >= 1 && charge.at(-1).type === "step", JSON.stringify(charge));
          assert.equal(charge.at(-1).data.result.orderId, "po-1");
        });
      },
    );

    it("the manager rejects: the process terminates without a charge", options, async () => {
      await withExampleApp(b, async (app) => {
        await app.publish("fiona", DEFINITION);
        const id = orderId("po-rejected");
        const started = await app.startProcess("paul", "purchase-order", orderVars(id, 1_000.01));
        // Not the finance directors: 1,000.01 is the manager's.
        const task = await app.waitForTask("mia", () => true);
        assert.deepEqual(await app.inbox("frank", "group:directors"), []);
        // Only the assignee may complete it.
        const denied = await app.request("paul", "POST", `/v1/tasks/${task.id}/complete`, {
          action: "approve",
        });
        assert.equal(denied.status, 403);
        await app.complete("mia", task, "reject");
        const run = await app.waitForRun(started.runId);
        assert.equal(run.status, "completed", JSON.stringify(run.error));
        assert.equal(run.output.terminated, "rejected");
        assert.equal(provider.attempts.get(id), undefined, "never charged");
      });
    });

    it(
      "a charge that fails on every attempt: four attempts (the state's retry), then onError",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          await app.publish("fiona", DEFINITION);
          const id = orderId("po-blocked");
          const started = await app.startProcess(
            "paul",
            "purchase-order",
            orderVars(id, 1_000, "blocked-supplier"),
          );
          const run = await app.waitForRun(started.runId);
          assert.equal(run.status, "completed", JSON.stringify(run.error));
          assert.equal(run.output.terminated, "payment failed");
          assert.equal(provider.attempts.get(id), 4);
        });
      },
    );

    it("vars the definition's schema refuses: 400 with pointers, no process", options, async () => {
      await withExampleApp(b, async (app) => {
        await app.publish("fiona", DEFINITION);
        const r = await app.request("paul", "POST", "/v1/processes", {
          processKey: "purchase-order",
          vars: { orderId: "x", requester: "paul", manager: "mia", amount: -5 },
        });
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.ok(JSON.stringify(r.body.errors).includes("/amount"), JSON.stringify(r.body));
      });
    });
  });
}
