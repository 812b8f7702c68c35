/**
 * The order saga: charge → reserve → warehouse approval (a human task for the
 * group "warehouse") → ship. If anything after the charge fails — the warehouse
 * rejects the order, shipping fails for good, or the run is cancelled — the
 * compensations registered so far run in reverse order: release, then refund.
 *
 * Load it into a server with
 *   taskflow serve --workflows examples/order-saga/workflows.ts
 * or embed it with createTaskflow(config, { workflows: { order } }) (see main.ts).
 */
import { workflow } from "taskflow";
import { OrderServices, Undeliverable, type Item } from "./services.ts";

export interface OrderInput {
  orderId: string;
  customer: string;
  items: Item[];
  amount: number;
  address: string;
}

export interface OrderOutput {
  orderId: string;
  chargeId: string;
  reservationId: string;
  trackingNumber: string;
  approvedBy: string | null;
}

/** The warehouse said no: a business outcome, so the workflow fails and compensates. */
export class OrderRejected extends Error {
  override name = "OrderRejected";
}

/** Builds the `order` workflow over the given services (tests pass their own). */
export function orderWorkflow(services: OrderServices) {
  const { payments, inventory, shipping } = services;

  return workflow("order", async (ctx, input: OrderInput): Promise<OrderOutput> => {
    const saga = ctx.saga();

    // At least once: a retry (or a takeover after a crash) calls the gateway again
    // with the same idempotency key, so the customer is charged once.
    const charge = await ctx.step(
      "charge",
      ({ idempotencyKey }) => payments.charge(idempotencyKey, input.customer, input.amount),
      { retry: { maxAttempts: 5, initialInterval: "200ms" } },
    );
    // Registered after the charge is recorded: only a charge that happened is refunded.
    // Each compensation runs as a step of its own (with its own idempotency key).
    saga.onFailure("refund", ({ idempotencyKey }) =>
      payments.refund(idempotencyKey, charge.chargeId),
    );

    const reservation = await ctx.step("reserve", ({ idempotencyKey }) =>
      inventory.reserve(idempotencyKey, input.items),
    );
    saga.onFailure("release", ({ idempotencyKey }) =>
      inventory.release(idempotencyKey, reservation.reservationId),
    );

    // An ordinary inbox task for the group: a member claims it, then completes it
    // with { vars: { action: "approve" | "reject", note? } }. The run holds no
    // memory while it waits; the completion wakes it.
    const approval = await ctx.humanTask("warehouse-approval", {
      assignee: { kind: "group", id: "warehouse" },
      vars: { orderId: input.orderId, items: input.items, address: input.address },
    });
    if (approval.action !== "approve") {
      const note = typeof approval.vars?.note === "string" ? `: ${approval.vars.note}` : "";
      throw new OrderRejected(`warehouse (${approval.completedBy}) rejected the order${note}`);
    }

    // Undeliverable fails the step at once (no retries); other errors are retried.
    const shipment = await ctx.step(
      "ship",
      ({ idempotencyKey }) => shipping.ship(idempotencyKey, input.address),
      { retry: { maxAttempts: 3 }, nonRetryable: [Undeliverable] },
    );

    return {
      orderId: input.orderId,
      chargeId: charge.chargeId,
      reservationId: reservation.reservationId,
      trackingNumber: shipment.trackingNumber,
      approvedBy: approval.completedBy,
    };
  });
}

/** The services the exported workflow uses (in-memory fakes; one set per process). */
export const services = new OrderServices();

export const order = orderWorkflow(services);
