/**
 * Fake payment, inventory and shipping services for the order saga.
 *
 * Like a real payment gateway, each one deduplicates by the idempotency key the
 * caller sends: a second call with the same key returns the first call's result
 * instead of charging (or reserving, or shipping) again. That is what makes a
 * retried step safe — ctx.step passes the same key `${runId}:${seq}` to every
 * attempt, also after a crash.
 */

export interface Item {
  sku: string;
  qty: number;
}

export interface Charge {
  chargeId: string;
  amount: number;
}

export interface Reservation {
  reservationId: string;
  items: Item[];
}

export interface Shipment {
  trackingNumber: string;
}

/** Thrown by shipping for an address no carrier serves: retrying cannot help. */
export class Undeliverable extends Error {
  override name = "Undeliverable";
}

export interface ServiceOptions {
  /**
   * The first charge call of each key succeeds at the gateway, then the response
   * is "lost" (it throws a timeout): the step retries with the same key.
   */
  loseFirstChargeResponse?: boolean;
}

export class OrderServices {
  /** Every effect that really happened, in order: "charge ch-1 42", "refund ch-1", … */
  readonly log: string[] = [];
  /** Calls received (including deduplicated ones), for the curious. */
  calls = 0;
  /** Charge calls per idempotency key: a retried step calls again with the same key. */
  readonly chargeCalls = new Map<string, number>();

  private readonly charges = new Map<string, Charge>();
  private readonly refunds = new Map<string, string>();
  private readonly reservations = new Map<string, Reservation>();
  private readonly releases = new Map<string, string>();
  private readonly shipments = new Map<string, Shipment>();
  private seq = 0;

  constructor(private readonly options: ServiceOptions = {}) {}

  readonly payments = {
    charge: async (key: string, customer: string, amount: number): Promise<Charge> => {
      this.calls++;
      this.chargeCalls.set(key, (this.chargeCalls.get(key) ?? 0) + 1);
      await tick();
      let charge = this.charges.get(key);
      const firstTime = charge === undefined;
      if (charge === undefined) {
        charge = { chargeId: `ch-${++this.seq}`, amount };
        this.charges.set(key, charge);
        this.log.push(`charge ${charge.chargeId} ${customer} ${amount}`);
      }
      if (firstTime && this.options.loseFirstChargeResponse) {
        throw new Error("payment gateway timeout (the charge went through)");
      }
      return charge;
    },
    refund: async (key: string, chargeId: string): Promise<string> => {
      this.calls++;
      await tick();
      let refundId = this.refunds.get(key);
      if (refundId === undefined) {
        refundId = `rf-${++this.seq}`;
        this.refunds.set(key, refundId);
        this.log.push(`refund ${chargeId}`);
      }
      return refundId;
    },
  };

  readonly inventory = {
    reserve: async (key: string, items: Item[]): Promise<Reservation> => {
      this.calls++;
      await tick();
      let r = this.reservations.get(key);
      if (r === undefined) {
        r = { reservationId: `rs-${++this.seq}`, items };
        this.reservations.set(key, r);
        this.log.push(
          `reserve ${r.reservationId} ${items.map((i) => `${i.qty}x${i.sku}`).join(",")}`,
        );
      }
      return r;
    },
    release: async (key: string, reservationId: string): Promise<void> => {
      this.calls++;
      await tick();
      if (!this.releases.has(key)) {
        this.releases.set(key, reservationId);
        this.log.push(`release ${reservationId}`);
      }
    },
  };

  readonly shipping = {
    ship: async (key: string, address: string): Promise<Shipment> => {
      this.calls++;
      await tick();
      if (/nowhere/i.test(address)) throw new Undeliverable(`no carrier delivers to '${address}'`);
      let s = this.shipments.get(key);
      if (s === undefined) {
        s = { trackingNumber: `TRK-${++this.seq}` };
        this.shipments.set(key, s);
        this.log.push(`ship ${s.trackingNumber} to ${address}`);
      }
      return s;
    },
  };

  /** How many charges were really made (not calls: a deduplicated retry makes none). */
  get chargeCount(): number {
    return this.charges.size;
  }

  /** The charge made under an idempotency key, if any. */
  chargeOf(key: string): Charge | undefined {
    return this.charges.get(key);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 5));
