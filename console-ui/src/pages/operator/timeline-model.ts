/**
 * A run's history as a timeline: one entry per ctx call, holding the call event and
 * the completion events that finished it (`data.ref` = the call's seq: a retried step's
 * further attempts and outcome, a wait's end). An entry's duration runs from its first
 * event to its last; a lone event has none, except a sleep, whose planned wake-up is
 * its end (a timer that fires records nothing unless it raced other waits).
 */
import type { RunEvent } from "../../wire.ts";

export interface TimelineEntry {
  /** The call's position; completion events point back to it. */
  seq: number;
  /** The call event's type: step, step_retry (a step that retried), timer, task_wait … */
  type: string;
  name: string | null;
  events: RunEvent[];
  start: string;
  /** The last event's time, or a sleep's wake-up; null while nothing ended it. */
  end: string | number | null;
}

/** Calls whose single event means "started waiting": without a completion they are open. */
const WAITS: ReadonlySet<string> = new Set([
  "step_retry",
  "signal_wait",
  "task_wait",
  "child_started",
]);

export function refOf(e: RunEvent): number | null {
  return e.data !== null && "ref" in e.data ? e.data.ref : null;
}

export function buildTimeline(events: readonly RunEvent[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const bySeq = new Map<number, TimelineEntry>();
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const ref = refOf(e);
    const call = ref === null ? undefined : bySeq.get(ref);
    if (call !== undefined) {
      call.events.push(e);
      call.end = e.at;
      continue;
    }
    const entry: TimelineEntry = {
      seq: e.seq,
      type: e.type,
      name: e.name,
      events: [e],
      start: e.at,
      end: endOfLone(e),
    };
    entries.push(entry);
    bySeq.set(e.seq, entry);
  }
  return entries;
}

function endOfLone(e: RunEvent): string | number | null {
  if (e.type === "timer" && "wakeAt" in e.data) return e.data.wakeAt;
  return WAITS.has(e.type) ? null : e.at;
}

/** Whether the entry is a wait (or a retry backoff) that nothing has ended yet. */
export function isOpen(entry: TimelineEntry): boolean {
  return entry.events.length === 1 && WAITS.has(entry.type);
}
