/**
 * examples/order-saga end to end on a real SQLite file: the order workflow in an
 * embedded TaskFlow, the warehouse approval done over REST by group members.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { WorkflowRegistry } from "taskflow";
import { openOrderApp, SHOP, type OrderApp } from "../../examples/order-saga/app.ts";
import { OrderServices } from "../../examples/order-saga/services.ts";
import * as orderModule from "../../examples/order-saga/workflows.ts";
import type { OrderInput } from "../../examples/order-saga/workflows.ts";

async function withApp(services: OrderServices, body: (app: OrderApp) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), "tf-order-saga-test-"));
  const app = await openOrderApp({ databaseUrl: `sqlite:${join(dir, "taskflow.db")}`, services });
  try {
    await body(app);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const input = (orderId: string, address = "1 Main St"): OrderInput => ({
  orderId,
  customer: "ann",
  items: [{ sku: "lamp", qty: 2 }],
  amount: 84,
  address,
});

const names = (h: { type: string; name: string | null }[]) =>
  h.map((e) => `${e.type}:${e.name ?? ""}`);

test("order-saga: the module exports exactly the `order` workflow (taskflow serve --workflows)", () => {
  const registry = new WorkflowRegistry();
  assert.equal(registry.registerModule(orderModule), 1);
  assert.deepEqual(registry.names(), ["order"]);
});

test("order-saga: a warehouse member approves over REST; the order ships; a retried charge charges once", async () => {
  const services = new OrderServices({ loseFirstChargeResponse: true });
  await withApp(services, async (app) => {
    const runId = await app.startOrder(input("o-1"));
    assert.equal(runId, "o-1");
    // Idempotent start: the same id returns the existing run (200), not a second order.
    const again = await app.request(SHOP, "POST", "/v1/workflows/order/runs", {
      id: "o-1",
      input: input("o-1"),
    });
    assert.equal(again.status, 200);

    const task = await app.waitForWarehouseTask(runId);
    assert.deepEqual(task.assignee, { kind: "group", id: "warehouse" });
    assert.equal(task.status, "open");
    assert.equal(task.assignedBy, SHOP);
    // The task is visible as soon as its insert commits; the run records the wait and
    // suspends a moment later, so its status is polled (bounded) rather than read once.
    let run = await app.call(SHOP, "GET", `/v1/runs/${runId}`);
    for (let i = 0; run.status !== "waiting" && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      run = await app.call(SHOP, "GET", `/v1/runs/${runId}`);
    }
    assert.equal(run.status, "waiting");
    assert.equal(task.rootInstanceId, run.rootInstanceId);
    // Only warehouse members may claim it.
    const denied = await app.request(SHOP, "POST", `/v1/tasks/${task.id}/claim`);
    assert.equal(denied.status, 403);

    const completed = await app.decide(task.id, "wendy", "approve");
    assert.equal(completed.task.completedBy, "wendy");
    const done = await app.waitForRun(runId);
    assert.equal(done.status, "completed", JSON.stringify(done.error));
    assert.deepEqual(done.output, {
      orderId: "o-1",
      chargeId: "ch-1",
      reservationId: "rs-2",
      trackingNumber: "TRK-3",
      approvedBy: "wendy",
    });
    assert.deepEqual(names(await app.history(runId)), [
      "step:charge",
      "step:reserve",
      "task_wait:warehouse-approval",
      "task:warehouse-approval",
      "step:ship",
    ]);
    // The first charge went through but its response was lost: the retry reused the key.
    assert.deepEqual([...services.chargeCalls], [["o-1:0", 2]]);
    assert.equal(services.chargeCount, 1);
    assert.deepEqual(services.log, [
      "charge ch-1 ann 84",
      "reserve rs-2 2xlamp",
      "ship TRK-3 to 1 Main St",
    ]);
    // The task left the group inbox.
    const inbox = await app.call("walt", "GET", "/v1/tasks?group=warehouse");
    assert.deepEqual(inbox.items, []);
  });
});

test("order-saga: shipping fails non-retryably → release, then refund; the run fails", async () => {
  const services = new OrderServices();
  await withApp(services, async (app) => {
    const runId = await app.startOrder(input("o-2", "Nowhere Island"));
    const task = await app.waitForWarehouseTask(runId, "walt");
    await app.decide(task.id, "walt", "approve");
    const done = await app.waitForRun(runId);
    assert.equal(done.status, "failed");
    assert.equal(done.output, null);
    assert.equal(done.error.name, "Undeliverable");
    assert.match(done.error.message, /Nowhere Island/);
    assert.deepEqual(names(await app.history(runId)), [
      "step:charge",
      "step:reserve",
      "task_wait:warehouse-approval",
      "task:warehouse-approval",
      "step:ship",
      "step:release",
      "step:refund",
    ]);
    assert.deepEqual(services.log, [
      "charge ch-1 ann 84",
      "reserve rs-2 2xlamp",
      "release rs-2",
      "refund ch-1",
    ]);
    // charge, reserve, ship once (Undeliverable is not retried), release, refund.
    assert.equal(services.calls, 5);
  });
});

test("order-saga: a warehouse rejection and a cancellation both compensate in reverse order", async () => {
  const services = new OrderServices();
  await withApp(services, async (app) => {
    const rejected = await app.startOrder(input("o-3"));
    const task = await app.waitForWarehouseTask(rejected);
    await app.decide(task.id, "wendy", "reject", "lamp discontinued");
    const r = await app.waitForRun(rejected);
    assert.equal(r.status, "failed");
    assert.equal(r.error.name, "OrderRejected");
    assert.equal(r.error.message, "warehouse (wendy) rejected the order: lamp discontinued");
    assert.deepEqual(services.log.slice(-2), ["release rs-2", "refund ch-1"]);

    // Cancel an order while it waits for the warehouse: its task is cancelled too.
    const cancelled = await app.startOrder(input("o-4"));
    const task4 = await app.waitForWarehouseTask(cancelled);
    const c = await app.request(SHOP, "POST", `/v1/runs/${cancelled}/cancel`);
    assert.equal(c.status, 202);
    const run = await app.waitForRun(cancelled);
    assert.equal(run.status, "cancelled");
    assert.equal(run.error.name, "CancelledFailure");
    assert.equal((await app.call("wendy", "GET", `/v1/tasks/${task4.id}`)).status, "cancelled");
    assert.deepEqual(services.log.slice(-4), [
      "charge ch-4 ann 84",
      "reserve rs-5 2xlamp",
      "release rs-5",
      "refund ch-4",
    ]);
    assert.deepEqual(names(await app.history(cancelled)).slice(-3), [
      "cancelled:",
      "step:release",
      "step:refund",
    ]);
  });
});
