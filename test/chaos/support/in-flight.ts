/**
 * Picks the moment to pause or kill a node so the fault hits work in hand
 * every time, not by luck. From the node's side-effect log: a step in flight
 * (a "start" without its "end": the takeover and the fence get exercised),
 * and, when the load offers it within the limit, a first step ("…:0") that
 * ended in the last 150 ms (its run is then in the 200 ms in-memory timer
 * that follows s0, so the node resumes that run on its own clock).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { readStepLogs, type StepMark } from "./step-log.ts";

/** 10 ms polls: steps last 40–160 ms, so a poll sees most of them in flight. */
const POLL_MS = 10;
/** Shorter than the 200 ms timer after s0, with room for the pause itself. */
const JUST_ENDED_MS = 150;

const inFlight = (marks: StepMark[]) =>
  marks.filter((m) => m.what === "start").length > marks.filter((m) => m.what === "end").length;

/** How many steps of the log have started and not ended (read once, e.g. of a stopped node). */
export function stepsInFlight(stepLog: string): number {
  return [...readStepLogs([stepLog])].filter(([, marks]) => inFlight(marks)).length;
}

/** True when both held at once; false otherwise (a step in flight alone, or nothing in the limit). */
export async function untilWorkInHand(stepLog: string, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const logs = [...readStepLogs([stepLog])];
    const now = Date.now();
    const flying = logs.some(([, marks]) => inFlight(marks));
    const inTimer = logs.some(
      ([key, marks]) =>
        key.endsWith(":0") && marks.some((m) => m.what === "end" && now - m.at < JUST_ENDED_MS),
    );
    if (flying && inTimer) return true;
    // Past half the limit, a step in flight alone will do.
    if (flying && deadline - now < limitMs / 2) return false;
    await sleep(POLL_MS);
  }
  return false;
}
