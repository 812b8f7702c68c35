/**
 * Calls that the load must see through a fault: tried on the nodes in turn
 * (as a client behind a load balancer would) until an accepted answer or the
 * scenario's hard deadline. Counts every answer that was not accepted.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { call, type Reply } from "./chaos-http.ts";

export class RetryingCaller {
  private next = 0;
  /** Refused answers by status ("0" = no answer: timeout or reset). */
  readonly refused = new Map<string, number>();
  /** The time of the last accepted answer. */
  lastOkAt = 0;

  constructor(
    private readonly bases: readonly string[],
    readonly hardDeadline: number,
  ) {}

  /** The accepted reply, or null once the deadline passed. */
  async until(
    method: "GET" | "POST",
    path: string,
    actor: string,
    body: unknown,
    accept: (r: Reply) => boolean,
  ): Promise<Reply | null> {
    for (let attempt = 1; Date.now() < this.hardDeadline; attempt++) {
      const base = this.bases[this.next++ % this.bases.length]!;
      const r = await call(base, method, path, actor, body);
      if (accept(r)) {
        this.lastOkAt = Date.now();
        return r;
      }
      const key = String(r.status);
      this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
      // 100 ms, growing to 500 ms: a fault of a few seconds costs a few dozen tries per actor.
      await sleep(100 * Math.min(attempt, 5));
    }
    return null;
  }
}

export const status =
  (...codes: number[]) =>
  (r: Reply) =>
    codes.includes(r.status);
