/**
 * ctx.humanTask: ordinary inbox task(s) under the run's root instance (a
 * referral), and a wait until the task policy decides. The tasks table stays
 * the source of truth: the run reads it again whenever it looks, and a task
 * completion only wakes the run (a `__task:<referral>` signal).
 */
import type { HumanTaskResult } from "../../../domain/human-task-result.ts";
import type { TaskWaitData } from "../../../domain/run-event.ts";
import type { TaskDetailsRequest } from "../../../domain/task-details.ts";
import { CancelledFailure } from "../../../domain/workflow-failure.ts";
import { toMs } from "../../../domain/duration.ts";
import { taskSignal, type HumanTaskBridge } from "../human-task-bridge.ts";
import type { Runtime } from "../runtime.ts";
import type { HumanTaskOptions } from "../types.ts";
import { cancelCall, cancelWait } from "./cancelled.ts";
import { evaluatePolicy, hasUnfinished, timedOutResult } from "./task-policy.ts";

const TASK_WAIT = ["task_wait"] as const;

export async function runHumanTask(
  rt: Runtime,
  seq: number,
  name: string,
  o: HumanTaskOptions,
): Promise<HumanTaskResult> {
  const ev = rt.cursor.match(seq, TASK_WAIT, name);
  const bridge = rt.humanTasks;
  if (bridge === undefined) throw new Error("ctx.humanTask needs the inbox (createTaskflow)");
  let wait: TaskWaitData;
  if (ev === undefined) {
    wait = await rt.scheduler.live(() => assignReferral(rt, bridge, seq, name, o));
    // The tasks were just created; a completion since then sends the wake-up
    // signal, which makes the suspension wake at once.
    const deadline = wait.deadline ?? null;
    if (deadline === null || deadline > rt.options.now())
      return park(rt, wait.instanceId, deadline);
  } else {
    const done = rt.cursor.lastCompletion(seq);
    if (done !== undefined) {
      await rt.scheduler.turn(done.seq);
      if (done.type === "task") {
        const r = done.data.result;
        return { ...r, timedOut: r.timedOut ?? false };
      }
      if (done.type === "cancelled") throw new CancelledFailure();
    }
    wait = ev.data;
  }
  const result = await rt.scheduler.live(() => decide(rt, bridge, seq, name, wait));
  if (result !== null) return result;
  return park(rt, wait.instanceId, wait.deadline ?? null);
}

/** The tasks' details as an assignment takes them: the call's name is the default title. */
function detailsOf(name: string, o: HumanTaskOptions): TaskDetailsRequest {
  const text = (t: Date | string | undefined) => (t instanceof Date ? t.toISOString() : t);
  return {
    title: o.title ?? name,
    description: o.description,
    priority: o.priority,
    dueAt: text(o.dueAt),
    followUpAt: text(o.followUpAt),
    form: o.form,
    formUi: o.formUi,
    actions: o.actions,
    actionRequired: o.actionRequired,
    exclude: o.exclude,
  };
}

/** Assigns the referral (exactly once in effect) and records `task_wait`. */
async function assignReferral(
  rt: Runtime,
  bridge: HumanTaskBridge,
  seq: number,
  name: string,
  o: HumanTaskOptions,
): Promise<TaskWaitData> {
  if (rt.cancellation.cancelling) await cancelCall(rt, seq);
  const { run } = rt;
  const root = run.rootInstanceId;
  if (root === null) throw new Error(`run '${run.id}' has no root instance`);
  const tag = { runId: run.id, seq, name };
  // A previous attempt may have created the referral and crashed before recording it,
  // or a second execution (lease takeover) may be creating it right now.
  const now = rt.options.now();
  const instanceId = await bridge.ensureReferral(
    run.tenantId,
    root,
    tag,
    o.assignee,
    o.vars ?? {},
    now,
    detailsOf(name, o),
  );
  rt.halts.check();
  const deadline = o.timeout === undefined ? null : rt.options.now() + toMs(o.timeout);
  const data: TaskWaitData = { instanceId, policy: o.policy ?? "all", deadline };
  await rt.writer.append({ seq, type: "task_wait", name, at: rt.options.now(), data });
  return data;
}

/**
 * Reads the referral's tasks and records the `task` event once the policy is
 * met, every task finished, or the timeout passed; null: still open.
 */
async function decide(
  rt: Runtime,
  bridge: HumanTaskBridge,
  seq: number,
  name: string,
  wait: TaskWaitData,
): Promise<HumanTaskResult | null> {
  const referralId = wait.instanceId;
  const deadline = wait.deadline ?? null;
  const tenantId = rt.run.tenantId;
  await rt.store.dropSignals(rt.lease, [taskSignal(referralId)]);
  const tasks = await bridge.tasksOf(tenantId, referralId);
  rt.halts.check();
  const now = rt.options.now();
  let r = evaluatePolicy(referralId, tasks, wait.policy);
  if (r === null && deadline !== null && now >= deadline) r = timedOutResult(referralId, tasks);
  if (r !== null) {
    if (hasUnfinished(tasks)) {
      const why = r.timedOut
        ? `'${name}' timed out`
        : r.cancelled
          ? `'${name}' can no longer be decided`
          : `'${name}' was decided without it (policy ${policyText(wait.policy)})`;
      await bridge.cancelUnfinished(tenantId, referralId, now, why);
    }
    const at = rt.options.now();
    const data = { ref: seq, result: r };
    await rt.writer.append({ seq: rt.cursor.completionSeq(), type: "task", name, at, data });
    return r;
  }
  if (rt.cancellation.cancelling) {
    await bridge.cancelUnfinished(tenantId, referralId, now, "the run was cancelled");
    await cancelWait(rt, seq);
  }
  return null;
}

const policyText = (p: TaskWaitData["policy"]) =>
  typeof p === "string" ? p : `at least ${p.atLeast}`;

/** Waits for the wake-up signal, the timeout, or the periodic re-check (recheckMs). */
function park(rt: Runtime, referralId: string, deadline: number | null): Promise<never> {
  const recheck = rt.options.now() + rt.options.recheckMs;
  const wakeAt = deadline === null ? recheck : Math.min(recheck, deadline);
  return rt.scheduler.park(wakeAt, [taskSignal(referralId)]);
}
