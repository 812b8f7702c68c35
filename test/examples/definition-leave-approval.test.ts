/**
 * examples/definitions/leave-approval end to end over REST: parallel review by
 * the manager and HR, escalation after two days (the clock is moved forward),
 * the booking code step, and a rejection that terminates the process.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backendTestOptions } from "../support/backends.ts";
import {
  DEFINITION,
  TWO_DAYS_MS,
  leaveApproval,
  leaveVars,
} from "../../examples/definitions/leave-approval/scenario.ts";
import { bookings } from "../../examples/definitions/leave-approval/steps.ts";
import { exampleBackends, quiet, withExampleApp } from "./support/with-example-app.ts";

for (const b of exampleBackends) {
  describe(`definition example leave-approval on ${b.name}`, async () => {
    const options = await backendTestOptions(b);

    it(
      "the story: mia approves, HR escalates to hilda after two days, the leave is booked",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          const before = bookings.size;
          const { started, run } = await leaveApproval(app, quiet);
          assert.equal(run.status, "completed", JSON.stringify(run.error));
          assert.equal(run.output.terminated, undefined);
          assert.equal(bookings.size, before + 1, "booked once");
          assert.deepEqual(run.output.vars.booking, {
            bookingId: `bk-${before + 1}`,
            employee: "emma",
            days: 5,
            startsOn: "2030-07-01",
          });
          assert.equal(run.output.vars.reviews.length, 2, "one output per branch");
          // The HR group's task was cancelled by the escalation; nobody in hr did it.
          const hr = await app.call("hank", "GET", "/v1/tasks?group=hr&status=all");
          assert.deepEqual(
            hr.items.map((t: { status: string }) => t.status),
            ["cancelled"],
          );
          const done = await app.call("hilda", "GET", "/v1/tasks?user=hilda&status=completed");
          assert.equal(done.items.length, 1);
          assert.equal(done.items[0].completedBy, "hilda");
          // The process is in emma's process list.
          const mine = await app.call("emma", "GET", "/v1/processes");
          assert.ok(mine.items.some((p: { id: string }) => p.id === started.instanceId));
        });
      },
    );

    it(
      "the manager does not answer: after two days the deputy dave gets the task too, and decides",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          await app.publish("hank", DEFINITION);
          const started = await app.startProcess("emma", "leave-approval", leaveVars(3));
          await app.waitForTask("mia", () => true);
          const hr = await app.waitForTask("hana", () => true, "group:hr");
          await app.complete("hana", hr, "approve");
          assert.deepEqual(
            await app.inbox("dave"),
            [],
            "no task for the deputy before the escalation",
          );
          app.clock.advance(TWO_DAYS_MS - 3_600_000);
          await new Promise((r) => setTimeout(r, 300));
          assert.deepEqual(await app.inbox("dave"), [], "none an hour before either");
          app.clock.advance(2 * 3_600_000);
          const deputy = await app.waitForTask("dave", () => true);
          const manager = await app.waitForTask("mia", (t) => t.instanceId === deputy.instanceId);
          assert.notEqual(manager.id, deputy.id);
          await app.complete("dave", deputy, "approve");
          const run = await app.waitForRun(started.runId);
          assert.equal(run.status, "completed", JSON.stringify(run.error));
          assert.equal(run.output.vars.booking.days, 3);
          assert.deepEqual(
            await app.inbox("mia"),
            [],
            "mia's escalated task was cancelled: the policy is any",
          );
        });
      },
    );

    it(
      "HR rejects: the process terminates, the manager's task is cancelled, nothing is booked",
      options,
      async () => {
        await withExampleApp(b, async (app) => {
          const before = bookings.size;
          await app.publish("hank", DEFINITION);
          const started = await app.startProcess("emma", "leave-approval", leaveVars(20));
          const hr = await app.waitForTask("hank", () => true, "group:hr");
          await app.waitForTask("mia", () => true);
          // An action the state does not have is refused.
          await app.call("hank", "POST", `/v1/tasks/${hr.id}/claim`);
          const bad = await app.request("hank", "POST", `/v1/tasks/${hr.id}/complete`, {
            action: "maybe",
          });
          assert.equal(bad.status, 400, JSON.stringify(bad.body));
          await app.call("hank", "POST", `/v1/tasks/${hr.id}/complete`, { action: "reject" });
          const run = await app.waitForRun(started.runId);
          assert.equal(run.status, "completed", JSON.stringify(run.error));
          assert.equal(run.output.terminated, "rejected by HR");
          assert.equal(bookings.size, before);
          for (const until = Date.now() + 5_000; (await app.inbox("mia")).length > 0;) {
            assert.ok(Date.now() < until, "mia's task is still open");
            await new Promise((r) => setTimeout(r, 50));
          }
        });
      },
    );
  });
}
