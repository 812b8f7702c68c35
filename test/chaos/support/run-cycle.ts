/**
 * The durable half of the load: start a "chaos-mix" run (idempotent by id, so
 * a retry after a lost answer is safe), send its signal, and later complete the
 * human task the run assigns.
 */
import { approverOf, signalAdd, taskBonus } from "./mix-expectations.ts";
import type { Ledger } from "./ledger.ts";
import { status, type RetryingCaller } from "./retrying-caller.ts";
import { completeTask } from "./task-cycle.ts";

export const runIdOf = (tag: string, n: number) => `${tag}-r${n}`;

/** True when the run was started and signalled: its task will come. */
export async function startAndSignal(
  caller: RetryingCaller,
  ledger: Ledger,
  tag: string,
  n: number,
): Promise<boolean> {
  const runId = runIdOf(tag, n);
  const started = await caller.until(
    "POST",
    "/v1/workflows/chaos-mix/runs",
    "runner",
    { id: runId, input: { n, tag } },
    status(200, 201),
  );
  if (!started) return false;
  ledger.runs.push({ runId, n });
  const add = signalAdd(n);
  const sent = await caller.until(
    "POST",
    `/v1/runs/${runId}/signals/go`,
    "runner",
    { add },
    status(202),
  );
  if (!sent) return false;
  ledger.signals.push({ runId, add });
  return true;
}

/** Completes run n's human task if it is in the approver's inbox yet; true when done. */
export async function finishRunTask(
  caller: RetryingCaller,
  ledger: Ledger,
  tag: string,
  n: number,
): Promise<boolean> {
  const user = approverOf(n, tag);
  const r = await caller.until("GET", `/v1/tasks?user=${user}`, user, undefined, status(200));
  if (!r) return false;
  const items = (r.body as { items: { id: string; status: string }[] }).items;
  const open = items.find((t) => t.status === "open");
  if (!open) return false;
  await completeTask(caller, ledger, open.id, user, { bonus: taskBonus(n) });
  return true;
}

/** A failed or cancelled run never assigns its task: the finisher stops waiting for it. */
export async function runIsFinal(caller: RetryingCaller, tag: string, n: number): Promise<boolean> {
  const r = await caller.until(
    "GET",
    `/v1/runs/${runIdOf(tag, n)}`,
    "runner",
    undefined,
    status(200),
  );
  const s = (r?.body as { status?: string } | undefined)?.status;
  return s === "completed" || s === "failed" || s === "cancelled";
}
