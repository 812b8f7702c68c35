/**
 * The two commands of the durable bridge (`ctx.humanTask`), as statements of
 * the locked transaction: giving a referral up, and settling a referral made
 * twice for one call. Both are rare (a timeout, a lease takeover during the
 * call), so they stay plain transactions on every backend.
 */
import type { Vars } from "../../../domain/vars.ts";
import type { TaskTx } from "./task-tx.ts";

/** Cancels the referral's open and claimed tasks, then completes it. */
export async function cancelReferral(
  tx: TaskTx,
  tenantId: string,
  referralId: string,
  at: number,
  reason: string,
): Promise<number> {
  let cancelled = 0;
  const change = { kind: "cancelled" as const, by: null, at, reason };
  for (const t of await tx.listTasksOfInstance(tenantId, referralId)) {
    if (t.status !== "open" && t.status !== "claimed") continue;
    const patch = { status: "cancelled" as const, completedAt: at, change };
    if (await tx.updateTask(tenantId, t.id, ["open", "claimed"], patch)) cancelled++;
  }
  await tx.completeInstance(tenantId, referralId, at);
  return cancelled;
}

/**
 * Under the root's row lock (SQLite: the serialised transaction), so the
 * second settlement always finds the first one's survivor.
 */
export async function keepOneReferral(
  tx: TaskTx,
  c: {
    tenantId: string;
    rootInstanceId: string;
    referralId: string;
    sameCall: (vars: Vars | null) => boolean;
    at: number;
  },
): Promise<string> {
  await tx.lockInstance(c.tenantId, c.rootInstanceId);
  for (const other of await tx.listChildren(c.tenantId, c.rootInstanceId)) {
    if (other.id === c.referralId || !c.sameCall(other.vars)) continue;
    const tasks = await tx.listTasksOfInstance(c.tenantId, other.id);
    if (tasks.length > 0 && tasks.every((t) => t.status === "cancelled")) continue;
    const why = "made twice for one call of its run: the other one is kept";
    await cancelReferral(tx, c.tenantId, c.referralId, c.at, why);
    return other.id;
  }
  return c.referralId;
}
