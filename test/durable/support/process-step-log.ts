/**
 * The step log the worker-process crash tests' steps write (`start|end KEY AT PID`
 * per line), read back: per idempotency key when each execution started, and
 * which process started and finished which steps.
 */
import { existsSync, readFileSync } from "node:fs";

export interface StepLog {
  /** Step (idempotency key) → when each of its executions started. */
  starts: Map<string, number[]>;
  /** The steps that finished at least once. */
  ends: Set<string>;
  /** Process → the steps it started, and the steps it finished. */
  startedBy: Map<number, Set<string>>;
  endedBy: Map<number, Set<string>>;
}

export function readStepLog(file: string): StepLog {
  const log: StepLog = {
    starts: new Map(),
    ends: new Set(),
    startedBy: new Map(),
    endedBy: new Map(),
  };
  if (!existsSync(file)) return log;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [what, key, at, pid] = line.split(" ");
    if (key === undefined || at === undefined || pid === undefined) continue; // the last, empty line
    const by = what === "start" ? log.startedBy : log.endedBy;
    by.set(Number(pid), (by.get(Number(pid)) ?? new Set()).add(key));
    if (what === "start") log.starts.set(key, [...(log.starts.get(key) ?? []), Number(at)]);
    else log.ends.add(key);
  }
  return log;
}

/** The steps process `pid` started and has not finished (all it ever will, once it is dead). */
export function inFlight(log: StepLog, pid: number): string[] {
  const ended = log.endedBy.get(pid) ?? new Set<string>();
  return [...(log.startedBy.get(pid) ?? [])].filter((k) => !ended.has(k));
}
