/**
 * examples/leave-approval end to end on a real SQLite file: the leave workflow
 * in an embedded TaskFlow, decisions made over REST in the inboxes of the
 * manager (a user task) and HR (a group task), withdrawal by signal.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { WorkflowRegistry } from "taskflow";
import { MANAGER, openLeaveApp, type LeaveApp } from "../../examples/leave-approval/app.ts";
import * as leaveModule from "../../examples/leave-approval/workflows.ts";
import { LeaveServices, type LeaveRequest } from "../../examples/leave-approval/workflows.ts";

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), "tf-leave-test-"));
  return {
    url: `sqlite:${join(dir, "taskflow.db")}`,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function withApp(hr: LeaveServices, body: (app: LeaveApp) => Promise<void>) {
  const db = tempDb();
  const app = await openLeaveApp({ databaseUrl: db.url, hr });
  try {
    await body(app);
  } finally {
    await app.close();
    db.remove();
  }
}

const req = (requestId: string, employee: string, days: number, inMs: number): LeaveRequest => ({
  requestId,
  employee,
  manager: MANAGER,
  days,
  startsAt: new Date(Date.now() + inMs).toISOString(),
});

const names = (h: { type: string; name: string | null }[]) =>
  h.map((e) => `${e.type}${e.name === null ? "" : `:${e.name}`}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("leave-approval: the module exports exactly the `leave` workflow", () => {
  const registry = new WorkflowRegistry();
  assert.equal(registry.registerModule(leaveModule), 1);
  assert.deepEqual(registry.names(), ["leave"]);
});

test("leave-approval: 3 days — the manager's user task only; the withdrawal window times out → approved", async () => {
  const hr = new LeaveServices();
  await withApp(hr, async (app) => {
    const runId = await app.submit(req("l-1", "emma", 3, 1_500));
    const task = await app.waitForTask(runId, MANAGER);
    assert.deepEqual(task.assignee, { kind: "user", id: MANAGER });
    assert.equal(task.assignedBy, "emma");
    // The request's details are on the task's referral instance.
    const referral = await app.call(MANAGER, "GET", `/v1/instances/${task.instanceId}`);
    assert.equal(referral.vars.days, 3);
    // Only the assignee may complete a user task.
    const denied = await app.request("emma", "POST", `/v1/tasks/${task.id}/complete`, {
      vars: { action: "approve" },
    });
    assert.equal(denied.status, 403);

    await app.decide(task, MANAGER, "approve");
    const run = await app.waitForRun(runId);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(run.output, {
      requestId: "l-1",
      status: "approved",
      approvedBy: [MANAGER],
      rejectedBy: null,
      note: null,
      bookingId: "bk-1",
    });
    assert.deepEqual(names(await app.history(runId)), [
      "task_wait:manager-approval",
      "task:manager-approval",
      "step:book",
      "now",
      "signal_wait:withdraw",
      "signal_timeout:withdraw",
      "step:notify-team",
    ]);
    assert.ok(Date.now() >= Date.parse(run.input.startsAt), "notified no earlier than the start");
    assert.deepEqual(hr.log, [
      `book bk-1 emma 3d from ${run.input.startsAt.slice(0, 10)}`,
      "notify emma is on leave for 3 days",
    ]);
    // No HR task was ever created.
    assert.deepEqual((await app.call("hank", "GET", "/v1/tasks?group=hr")).items, []);
  });
});

test("leave-approval: 10 days — HR group task after the manager; a withdrawal sent early is kept", async () => {
  const hr = new LeaveServices();
  await withApp(hr, async (app) => {
    const runId = await app.submit(req("l-2", "eli", 10, 60_000));
    const mgr = await app.waitForTask(runId, MANAGER);
    // HR is asked only once the manager has approved.
    assert.deepEqual((await app.call("hank", "GET", "/v1/tasks?group=hr")).items, []);
    await app.decide(mgr, MANAGER, "approve");
    const hrTask = await app.waitForTask(runId, "hana");
    assert.deepEqual(hrTask.assignee, { kind: "group", id: "hr" });
    // The employee withdraws while HR is still deciding: the signal waits for the run.
    await app.withdraw(runId, "eli", "plans changed");
    const claimed = await app.call("hank", "POST", `/v1/tasks/${hrTask.id}/claim`);
    assert.equal(claimed.claimedBy, "hank");
    await app.call("hank", "POST", `/v1/tasks/${hrTask.id}/complete`, {
      vars: { action: "approve" },
    });

    const run = await app.waitForRun(runId);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(run.output, {
      requestId: "l-2",
      status: "withdrawn",
      approvedBy: [MANAGER, "hank"],
      rejectedBy: null,
      note: "plans changed",
      bookingId: "bk-1",
    });
    // The signal was already there: consumed at once, no signal_wait.
    assert.deepEqual(names(await app.history(runId)), [
      "task_wait:manager-approval",
      "task:manager-approval",
      "task_wait:hr-approval",
      "task:hr-approval",
      "step:book",
      "now",
      "signal:withdraw",
      "step:unbook",
    ]);
    assert.deepEqual(hr.log, [
      `book bk-1 eli 10d from ${run.input.startsAt.slice(0, 10)}`,
      "unbook bk-1",
    ]);
  });
});

test("leave-approval: rejections by the manager and by HR end the request unbooked", async () => {
  const hr = new LeaveServices();
  await withApp(hr, async (app) => {
    const a = await app.submit(req("l-3", "emma", 2, 60_000));
    await app.decide(await app.waitForTask(a, MANAGER), MANAGER, "reject", "offsite");
    const ra = await app.waitForRun(a);
    assert.equal(ra.status, "completed");
    assert.deepEqual(ra.output, {
      requestId: "l-3",
      status: "rejected",
      approvedBy: [],
      rejectedBy: MANAGER,
      note: "offsite",
      bookingId: null,
    });

    const b = await app.submit(req("l-4", "eli", 8, 60_000));
    await app.decide(await app.waitForTask(b, MANAGER), MANAGER, "approve");
    await app.decide(await app.waitForTask(b, "hana"), "hana", "reject", "no cover");
    const rb = await app.waitForRun(b);
    assert.deepEqual(rb.output, {
      requestId: "l-4",
      status: "rejected",
      approvedBy: [MANAGER],
      rejectedBy: "hana",
      note: "no cover",
      bookingId: null,
    });
    assert.deepEqual(hr.log, []);
  });
});

test("leave-approval: the withdrawal window survives a restart of the engine on the same file", async () => {
  const hr = new LeaveServices();
  const db = tempDb();
  try {
    const first = await openLeaveApp({ databaseUrl: db.url, hr });
    let runId: string;
    try {
      runId = await first.submit(req("l-5", "emma", 4, 1_200));
      await first.decide(await first.waitForTask(runId, MANAGER), MANAGER, "approve");
      for (let i = 0; ; i++) {
        const h = names(await first.history(runId));
        if (h.includes("signal_wait:withdraw")) break;
        assert.ok(i < 200, `never reached the wait: ${h.join(", ")}`);
        await sleep(25);
      }
      // Recorded wait first, suspension a moment later: poll the status (bounded).
      let status = (await first.call("emma", "GET", `/v1/runs/${runId}`)).status;
      for (let i = 0; status !== "waiting" && i < 200; i++) {
        await sleep(25);
        status = (await first.call("emma", "GET", `/v1/runs/${runId}`)).status;
      }
      assert.equal(status, "waiting");
    } finally {
      await first.close();
    }
    // Nothing runs while the engine is down; the deadline passes meanwhile.
    await sleep(1_500);
    assert.deepEqual(
      hr.log.map((l) => l.split(" ")[0]),
      ["book"],
    );

    const second = await openLeaveApp({ databaseUrl: db.url, hr });
    try {
      const run = await second.waitForRun(runId, 5_000);
      assert.equal(run.output.status, "approved");
      // The booking step was recorded before the restart: it did not run again.
      assert.deepEqual(
        hr.log.map((l) => l.split(" ")[0]),
        ["book", "notify"],
      );
      assert.deepEqual(names(await second.history(runId)).slice(-3), [
        "signal_wait:withdraw",
        "signal_timeout:withdraw",
        "step:notify-team",
      ]);
    } finally {
      await second.close();
    }
  } finally {
    db.remove();
  }
});
