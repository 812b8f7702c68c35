/**
 * ctx.child: starts a child run exactly once and waits for its outcome. The
 * child's finish signals the parent (`__child:<id>`) in the same transaction,
 * and the parent re-checks every recheckMs in case that wake-up was missed.
 */
import { createHash } from "node:crypto";
import { isTerminal } from "../../../domain/run.ts";
import type { StepOutcome } from "../../../domain/run-event.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../../../domain/limits.ts";
import {
  ChildFailedError,
  CancelledFailure,
  NonRetryableError,
  toFailure,
} from "../../../domain/workflow-failure.ts";
import { toJson } from "../json-form.ts";
import type { Runtime } from "../runtime.ts";
import type { ChildOptions } from "../types.ts";
import { cancelCall, cancelWait } from "./cancelled.ts";

const CHILD_STARTED = ["child_started"] as const;

/** The signal a finishing child run sends its parent. */
export const childSignal = (childRunId: string) => `__child:${childRunId}`;

/** Deterministic and at most 128 characters: the same child on every replay. */
export function childRunId(parentId: string, seq: number): string {
  const id = `${parentId}:${seq}`;
  if (id.length <= 128) return id;
  return `${createHash("sha256").update(parentId).digest("hex").slice(0, 64)}:${seq}`;
}

export async function runChild(
  rt: Runtime,
  seq: number,
  name: string,
  input: unknown,
  options: ChildOptions = {},
): Promise<unknown> {
  const ev = rt.cursor.match(seq, CHILD_STARTED, name);
  let childId: string;
  if (ev === undefined) {
    childId = await rt.scheduler.live(() => startChild(rt, seq, name, input, options));
  } else {
    const done = rt.cursor.lastCompletion(seq);
    if (done !== undefined) {
      await rt.scheduler.turn(done.seq);
      if (done.type === "child") return childResult(name, done.data);
      if (done.type === "cancelled") throw new CancelledFailure();
    }
    childId = ev.data.childRunId;
  }
  const outcome = await rt.scheduler.live(() => checkChild(rt, seq, name, childId));
  if (outcome !== undefined) return childResult(name, outcome);
  return rt.scheduler.park(rt.options.now() + rt.options.recheckMs, [childSignal(childId)]);
}

/** Creates the child run (idempotent by its id) and records `child_started`. */
async function startChild(
  rt: Runtime,
  seq: number,
  name: string,
  input: unknown,
  options: ChildOptions,
): Promise<string> {
  if (rt.cancellation.cancelling) await cancelCall(rt, seq);
  const { run } = rt;
  const id = childRunId(run.id, seq);
  const key = options.processKey;
  if (key !== undefined && (key.length > MAX_ID_LENGTH || !new RegExp(ID_PATTERN).test(key))) {
    throw new NonRetryableError(
      `ctx.child processKey '${key}' must be 1–${MAX_ID_LENGTH} letters, digits or . _ - @ :`,
    );
  }
  const shared = options.inParentProcess === true ? run.rootInstanceId : null;
  // Idempotent by id: a retry after a crash finds the child it already started.
  await rt.store.createRun({
    tenantId: run.tenantId,
    id,
    workflow: name,
    input: toJson(input) ?? null,
    parentRunId: run.id,
    startedBy: "",
    definitionKey: key,
    ...(shared !== null && { rootInstanceId: shared }),
    now: rt.options.now(),
  });
  rt.halts.check();
  const data = { childRunId: id };
  await rt.writer.append({ seq, type: "child_started", name, at: rt.options.now(), data });
  return id;
}

/** Records the child's outcome once it has one; undefined: still running. */
async function checkChild(
  rt: Runtime,
  seq: number,
  name: string,
  childId: string,
): Promise<StepOutcome | undefined> {
  const tenantId = rt.run.tenantId;
  await rt.store.dropSignals(rt.lease, [childSignal(childId)]);
  const child = await rt.store.getRun(tenantId, childId);
  rt.halts.check();
  if (child !== undefined && isTerminal(child.status)) {
    const data =
      child.status === "completed"
        ? { ref: seq, result: child.output }
        : { ref: seq, failure: child.error ?? toFailure(new Error(`child ${child.status}`)) };
    const at = rt.options.now();
    await rt.writer.append({ seq: rt.cursor.completionSeq(), type: "child", name, at, data });
    return data;
  }
  if (rt.cancellation.cancelling) {
    await rt.store.requestCancel(tenantId, childId, rt.options.now());
    await cancelWait(rt, seq);
  }
  return undefined;
}

function childResult(name: string, outcome: StepOutcome): unknown {
  if (outcome.failure !== undefined) throw new ChildFailedError(name, outcome.failure);
  return outcome.result;
}
