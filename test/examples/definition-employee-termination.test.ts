/**
 * examples/definitions/employee-termination end to end over REST: HR starts
 * it, IT, finance and the manager act in parallel (two group tasks and a user
 * task, with forms), HR closes it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backendTestOptions } from "../support/backends.ts";
import {
  DEFINITION,
  employeeTermination,
  terminationVars,
} from "../../examples/definitions/employee-termination/scenario.ts";
import { exampleBackends, quiet, withExampleApp } from "./support/with-example-app.ts";

for (const b of exampleBackends) {
  describe(`definition example employee-termination on ${b.name}`, async () => {
    const options = await backendTestOptions(b);

    it(
      "the story: three tasks in parallel, then HR closes; the outputs are in the vars",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          const { started, run } = await employeeTermination(app, quiet);
          assert.equal(run.status, "completed", JSON.stringify(run.error));
          const { offboarding, closing } = run.output.vars;
          assert.equal(offboarding.length, 3);
          assert.deepEqual(offboarding[0].it.data, {
            accountsRevoked: true,
            equipmentReturned: ["laptop", "badge"],
          });
          assert.equal(offboarding[0].it.completedBy, "ivan");
          assert.deepEqual(offboarding[1].finance.data, { finalPay: 4_180.5 });
          assert.deepEqual(offboarding[2].handover.data, { successor: "dave" });
          assert.equal(offboarding[2].handover.completedBy, "mia");
          assert.equal(closing.action, "close");
          assert.equal(closing.completedBy, "hana");
          const mine = await app.call("hank", "GET", "/v1/processes");
          assert.ok(mine.items.some((p: { id: string }) => p.id === started.instanceId));
        });
      },
    );

    it(
      "HR's closing task comes only once all three are done; a form's required field is enforced",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          await app.publish("hank", DEFINITION);
          const started = await app.startProcess("hank", "employee-termination", terminationVars());
          const it = await app.waitForTask("iris", () => true, "group:it");
          const finance = await app.waitForTask("fiona", () => true, "group:finance");
          const handover = await app.waitForTask("mia", () => true);
          await app.call("iris", "POST", `/v1/tasks/${it.id}/claim`);
          const bad = await app.request("iris", "POST", `/v1/tasks/${it.id}/complete`, {
            vars: { equipmentReturned: ["laptop"] },
          });
          assert.equal(bad.status, 400, JSON.stringify(bad.body));
          await app.call("iris", "POST", `/v1/tasks/${it.id}/complete`, {
            vars: { accountsRevoked: true },
          });
          await app.complete("mia", handover, undefined, {});
          await new Promise((r) => setTimeout(r, 300));
          assert.deepEqual(
            await app.inbox("hank", "group:hr"),
            [],
            "no closing task while finance is open",
          );
          await app.complete("fiona", finance, undefined, { finalPay: 0 });
          const close = await app.waitForTask("hank", () => true, "group:hr");
          await app.complete("hank", close, "close");
          const run = await app.waitForRun(started.runId);
          assert.equal(run.status, "completed", JSON.stringify(run.error));
          assert.equal(run.output.vars.closing.completedBy, "hank");
        });
      },
    );
  });
}
