/**
 * Time to recover after a fault ended: until every node has acknowledged a
 * write again, and until a run started after the fault has completed.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { call, isOk } from "./chaos-http.ts";

export interface Recovery {
  /** Seconds from the fault's end to a write acknowledged by every node; null: never. */
  requestS: number | null;
  /** Seconds from the fault's end to a new run's completion; null: never. */
  runS: number | null;
}

/** 100 ms between probes: the resolution of the figure. */
const PROBE_EVERY_MS = 100;

const seconds = (from: number) => Math.round((Date.now() - from) / 100) / 10;

async function writesAnswered(
  bases: readonly string[],
  healedAt: number,
  deadline: number,
): Promise<number | null> {
  const pending = new Set(bases);
  while (Date.now() < deadline) {
    for (const base of [...pending]) {
      const r = await call(base, "POST", "/v1/processes", "probe", { processKey: "chaos-probe" });
      if (isOk(r)) pending.delete(base);
    }
    if (pending.size === 0) return seconds(healedAt);
    await sleep(PROBE_EVERY_MS);
  }
  return null;
}

async function runCompleted(
  bases: readonly string[],
  runId: string,
  healedAt: number,
  deadline: number,
): Promise<number | null> {
  let started = false;
  for (let i = 0; Date.now() < deadline; i++) {
    const base = bases[i % bases.length]!;
    if (!started) {
      const body = { id: runId, input: { at: healedAt } };
      const r = await call(base, "POST", "/v1/workflows/chaos-probe/runs", "probe", body);
      started = isOk(r);
    } else {
      const r = await call(base, "GET", `/v1/runs/${runId}`, "probe");
      if (isOk(r) && (r.body as { status: string }).status === "completed") {
        return seconds(healedAt);
      }
    }
    await sleep(PROBE_EVERY_MS);
  }
  return null;
}

export async function measureRecovery(
  bases: readonly string[],
  probeRunId: string,
  healedAt: number,
  deadline: number,
): Promise<Recovery> {
  const [requestS, runS] = await Promise.all([
    writesAnswered(bases, healedAt, deadline),
    runCompleted(bases, probeRunId, healedAt, deadline),
  ]);
  return { requestS, runS };
}
