/**
 * The order saga, end to end, in one process:
 *
 *   npx tsx examples/order-saga/main.ts
 *
 * Starts an embedded TaskFlow on a temporary SQLite file, then
 *   1. order 1001: the payment gateway loses the first charge response, the step
 *      retries with the same idempotency key (one charge), a warehouse member
 *      approves over REST, the order ships;
 *   2. order 1002: approved, but shipping fails for good, so the compensations
 *      run in reverse order: release the stock, then refund the charge.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openOrderApp, type Json } from "./app.ts";
import { OrderServices } from "./services.ts";

const dir = mkdtempSync(join(tmpdir(), "taskflow-order-saga-"));
const services = new OrderServices({ loseFirstChargeResponse: true });
const app = await openOrderApp({ databaseUrl: `sqlite:${join(dir, "taskflow.db")}`, services });

const show = (events: Json[]) =>
  events
    .map((e) => {
      const d = e.data as { failure?: { name: string }; result?: unknown } | null;
      const what = d?.failure ? ` ✗ ${d.failure.name}` : "";
      return `    ${String(e.seq).padStart(2)} ${e.type.padEnd(10)} ${e.name ?? ""}${what}`;
    })
    .join("\n");

try {
  console.log(`TaskFlow on ${app.tf.config.databaseUrl}\n`);

  // --- 1. The happy path -------------------------------------------------------
  console.log("Order 1001: 2 × lamp for ann, 84.00, to 1 Main St");
  const ok = await app.startOrder({
    orderId: "order-1001",
    customer: "ann",
    items: [{ sku: "lamp", qty: 2 }],
    amount: 84,
    address: "1 Main St",
  });
  const task = await app.waitForWarehouseTask(ok);
  const referral = await app.call("wendy", "GET", `/v1/instances/${task.instanceId}`);
  console.log(
    `  inbox task ${task.id} for ${task.assignee.kind} '${task.assignee.id}'` +
      ` (order ${referral.vars.orderId}, ${JSON.stringify(referral.vars.items)})`,
  );
  await app.decide(task.id, "wendy", "approve");
  console.log("  wendy claimed it and approved it (POST /v1/tasks/{id}/claim, …/complete)");
  const done = await app.waitForRun(ok);
  console.log(`  run ${done.runId}: ${done.status}`);
  console.log(`  output: ${JSON.stringify(done.output)}`);
  console.log(show(await app.history(ok)));

  // --- 2. Shipping fails: compensations in reverse order -----------------------
  console.log("\nOrder 1002: 1 × desk for bob, 250.00, to Nowhere Island");
  const bad = await app.startOrder({
    orderId: "order-1002",
    customer: "bob",
    items: [{ sku: "desk", qty: 1 }],
    amount: 250,
    address: "Nowhere Island",
  });
  const task2 = await app.waitForWarehouseTask(bad, "walt");
  await app.decide(task2.id, "walt", "approve");
  console.log("  walt approved it");
  const failed = await app.waitForRun(bad);
  console.log(
    `  run ${failed.runId}: ${failed.status} — ${failed.error.name}: ${failed.error.message}`,
  );
  console.log(show(await app.history(bad)));

  console.log("\nWhat the fake services really did, in order:");
  for (const line of services.log) console.log(`  ${line}`);
  console.log("\nThe gateway lost each first charge response; the step retried with the same key:");
  for (const [key, n] of services.chargeCalls) {
    console.log(`  key ${key}: ${n} calls → 1 charge (${services.chargeOf(key)?.chargeId})`);
  }
  console.log(`  ${services.chargeCount} charges in all, for 2 orders.`);
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
