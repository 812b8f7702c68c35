/**
 * The inbox calls an execution makes (ctx.humanTask), with the same treatment
 * as its run-store calls (halting-store.ts): a rejection halts the execution,
 * so a dropped connection while creating or reading the human task makes the
 * worker release the run for a later replay, instead of becoming the
 * workflow's own failure (recorded for good).
 *
 * Except a TaskflowError: the engine raises those on purpose (a bad assignee,
 * a forbidden or missing instance), a replay would raise them again, so they
 * stay the workflow's error, for its code to catch or to fail the run with.
 * A plain decorator (no Proxy), so a new bridge method fails to compile here
 * instead of silently skipping the halt.
 */
import { isTaskflowError } from "../../domain/errors.ts";
import type { Halt } from "./halts.ts";
import type { HumanTaskBridge } from "./human-task-bridge.ts";

export function haltingBridge(
  bridge: HumanTaskBridge,
  onError: (e: unknown) => Halt,
): HumanTaskBridge {
  const halt = (e: unknown): never => {
    throw isTaskflowError(e) ? e : onError(e);
  };
  return {
    findReferral: (tenantId, rootInstanceId, tag) =>
      bridge.findReferral(tenantId, rootInstanceId, tag).catch(halt),
    ensureReferral: (tenantId, rootInstanceId, tag, assignee, vars, now, details) =>
      bridge
        .ensureReferral(tenantId, rootInstanceId, tag, assignee, vars, now, details)
        .catch(halt),
    assign: (tenantId, rootInstanceId, assignee, vars, details) =>
      bridge.assign(tenantId, rootInstanceId, assignee, vars, details).catch(halt),
    tasksOf: (tenantId, referralId) => bridge.tasksOf(tenantId, referralId).catch(halt),
    cancelUnfinished: (tenantId, referralId, now, reason) =>
      bridge.cancelUnfinished(tenantId, referralId, now, reason).catch(halt),
  };
}
