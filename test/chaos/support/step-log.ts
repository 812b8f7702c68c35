/**
 * Reads the nodes' side-effect logs (see chaos-flows.ts): for each step's
 * idempotency key, every start and end, by which node, when.
 */
import { existsSync, readFileSync } from "node:fs";

export interface StepMark {
  what: "start" | "end";
  node: string;
  at: number;
}

export function readStepLogs(files: readonly string[]): Map<string, StepMark[]> {
  const byKey = new Map<string, StepMark[]>();
  for (const file of files) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [what, key, node, at] = line.split(" ");
      // A kill -9 can leave half a line at the end of a file: skip it.
      if ((what !== "start" && what !== "end") || !key || !node || !at) continue;
      const marks = byKey.get(key) ?? [];
      marks.push({ what, node, at: Number(at) });
      byKey.set(key, marks);
    }
  }
  return byKey;
}

export interface StepAudit {
  /** Starts after the step's completion was recorded: must be 0. */
  reexecuted: number;
  /** Extra starts before the record: a step in flight when its node failed. Allowed. */
  rerunInFlight: number;
  /** Ends after the record by a node other than the recorded one: late writes the fence refused. */
  fencedLate: number;
}

/** Audits one recorded step against the marks of its idempotency key. */
export function auditStep(marks: readonly StepMark[], recordedAt: number, recordedBy: string) {
  const starts = marks.filter((m) => m.what === "start");
  return {
    reexecuted: starts.filter((m) => m.at > recordedAt).length,
    rerunInFlight: Math.max(0, starts.filter((m) => m.at <= recordedAt).length - 1),
    fencedLate: marks.filter((m) => m.what === "end" && m.at > recordedAt && m.node !== recordedBy)
      .length,
  } satisfies StepAudit;
}
