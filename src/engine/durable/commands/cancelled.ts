/**
 * Ending a ctx call because the run's cancellation was requested: the
 * cancellation is recorded, so a replay ends the call the same way, and the
 * call throws CancelledFailure.
 */
import { CancelledFailure } from "../../../domain/workflow-failure.ts";
import type { Runtime } from "../runtime.ts";

/** The call had recorded nothing yet: the cancellation takes its position. */
export async function cancelCall(rt: Runtime, seq: number): Promise<never> {
  await rt.writer.append({ seq, type: "cancelled", name: null, at: rt.options.now(), data: null });
  throw new CancelledFailure();
}

/** The call at `ref` was waiting: the cancellation is its completion. */
export async function cancelWait(rt: Runtime, ref: number): Promise<never> {
  const at = rt.options.now();
  const seq = rt.cursor.completionSeq();
  await rt.writer.append({ seq, type: "cancelled", name: null, at, data: { ref } });
  throw new CancelledFailure();
}
