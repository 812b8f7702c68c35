/**
 * The code step of the purchase-order definition: `charge`, a fake payment
 * provider. Its first attempt for an order always times out (as a real
 * provider sometimes does), so the state's `retry` is seen at work; an order
 * whose supplier is "blocked-supplier" is declined on every attempt, which
 * ends the process through the state's `onError`.
 */
import { registerStep } from "taskflow";

export interface Charge {
  chargeId: string;
  orderId: string;
  amount: number;
}

/** What the provider saw: attempts per order, and the charges it made (once per idempotency key). */
export const provider = {
  attempts: new Map<string, number>(),
  charges: new Map<string, Charge>(),
};

registerStep("charge", (input, { idempotencyKey }) => {
  const { orderId, amount, supplier } = input as Omit<Charge, "chargeId"> & { supplier?: string };
  const attempt = (provider.attempts.get(orderId) ?? 0) + 1;
  provider.attempts.set(orderId, attempt);
  if (supplier === "blocked-supplier") throw new Error(`payment to ${supplier} declined`);
  if (attempt === 1) throw new Error("payment provider timed out");
  const known = provider.charges.get(idempotencyKey);
  if (known !== undefined) return known;
  const charge = { chargeId: `ch-${provider.charges.size + 1}`, orderId, amount };
  provider.charges.set(idempotencyKey, charge);
  return charge;
});
