/**
 * After a scenario: reads every acknowledged write back through the API and
 * audits the runs — each completes once with the right output, its signal
 * consumed, and no recorded step ran again (from the nodes' side-effect logs).
 */
import { isDeepStrictEqual } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import type { Ledger } from "./ledger.ts";
import { expectedMixOutput } from "./mix-expectations.ts";
import { RetryingCaller, status } from "./retrying-caller.ts";
import { auditStep, type StepAudit, type StepMark } from "./step-log.ts";

export interface ReadBack extends StepAudit {
  /** Acknowledged writes that are missing or differ, one line each. */
  lost: string[];
  /** Runs not completed with the right output (also counted in lost). */
  badRuns: number;
  /** The re-executed steps, with their marks, for the report. */
  rerunDetails: string[];
}

interface RunView {
  status: string;
  output: unknown;
  error: { name?: string; message?: string; stack?: string | null } | null;
}
interface EventView {
  seq: number;
  type: string;
  name: string | null;
  at: string;
  data: { result?: { by?: string }; payload?: { add?: number } } | null;
}

/** The failure and the engine frames it came through, to point at the code that let it out. */
function failureText(e: NonNullable<RunView["error"]>): string {
  const frames = (e.stack ?? "").split("\n").filter((l) => l.includes("/src/"));
  const where = frames.slice(0, 3).map((l) =>
    l
      .trim()
      .replace(/^at /, "")
      .replace(/\(.*\/src\//, "(src/"),
  );
  return `${e.name}: ${e.message}${where.length ? ` at ${where.join(" < ")}` : ""}`;
}

const FINAL = new Set(["completed", "failed", "cancelled"]);

/** Eight reads at a time: the read-back of a few hundred writes takes seconds, not a minute. */
const READERS = 8;

async function eachInParallel<T>(items: readonly T[], fn: (item: T) => Promise<void>) {
  let next = 0;
  const reader = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: READERS }, reader));
}

async function get(caller: RetryingCaller, path: string): Promise<unknown> {
  const r = await caller.until("GET", path, "auditor", undefined, status(200, 404));
  return r?.status === 200 ? r.body : null;
}

/**
 * Runs of the quick load finish within seconds of the last human task; 45 s
 * is a run that will not finish. The reads after it get their own 30 s, so a
 * stuck run never makes the rest of the ledger look lost.
 */
const SETTLE_LIMIT_MS = 45_000;
const READ_LIMIT_MS = 30_000;

/** Waits (up to SETTLE_LIMIT_MS) for every acknowledged run to be final. */
async function settledRuns(
  bases: readonly string[],
  ledger: Ledger,
): Promise<Map<string, RunView>> {
  const caller = new RetryingCaller(bases, Date.now() + SETTLE_LIMIT_MS);
  const views = new Map<string, RunView>();
  while (Date.now() < caller.hardDeadline) {
    const open = ledger.runs.filter(({ runId }) => !FINAL.has(views.get(runId)?.status ?? ""));
    await eachInParallel(open, async ({ runId }) => {
      const v = (await get(caller, `/v1/runs/${runId}`)) as RunView | null;
      if (v) views.set(runId, v);
    });
    if (ledger.runs.every(({ runId }) => FINAL.has(views.get(runId)?.status ?? ""))) break;
    await sleep(250);
  }
  return views;
}

async function auditRuns(
  bases: readonly string[],
  ledger: Ledger,
  steps: Map<string, StepMark[]>,
  out: ReadBack,
): Promise<RetryingCaller> {
  const views = await settledRuns(bases, ledger);
  const caller = new RetryingCaller(bases, Date.now() + READ_LIMIT_MS);
  const signalled = new Map(ledger.signals.map((s) => [s.runId, s.add]));
  await eachInParallel(ledger.runs, async ({ runId, n }) => {
    const v = views.get(runId);
    if (v?.status !== "completed" || !isDeepStrictEqual(v.output, expectedMixOutput(n))) {
      out.badRuns++;
      const why = v?.error ? failureText(v.error) : JSON.stringify(v?.output);
      out.lost.push(`run ${runId}: ${v?.status ?? "missing"} ${why}`);
    }
    const history = (await get(caller, `/v1/runs/${runId}/history`)) as {
      items: EventView[];
    } | null;
    const events = history?.items ?? [];
    const stepEvents = events.filter((e) => e.type === "step");
    const names = stepEvents.map((e) => e.name);
    if (new Set(names).size !== names.length) out.lost.push(`run ${runId}: a step recorded twice`);
    for (const e of stepEvents) {
      const key = `${runId}:${e.seq}`;
      const marks = steps.get(key) ?? [];
      const audit = auditStep(marks, Date.parse(e.at), e.data?.result?.by ?? "?");
      if (audit.reexecuted > 0) {
        const seen = marks.map((m) => `${m.what}@${m.node}:${m.at}`).join(" ");
        out.rerunDetails.push(`${key} recorded ${e.at} by ${e.data?.result?.by}: ${seen}`);
      }
      out.reexecuted += audit.reexecuted;
      out.rerunInFlight += audit.rerunInFlight;
      out.fencedLate += audit.fencedLate;
    }
    const add = signalled.get(runId);
    const consumed = events.find((e) => e.type === "signal" && e.name === "go");
    if (add !== undefined && consumed?.data?.payload?.add !== add) {
      out.lost.push(`signal go of ${runId}: not consumed`);
    }
  });
  return caller;
}

async function auditInbox(caller: RetryingCaller, ledger: Ledger, out: ReadBack): Promise<void> {
  await eachInParallel(ledger.processes, async (id) => {
    if (!(await get(caller, `/v1/instances/${id}`))) out.lost.push(`process ${id}`);
  });
  await eachInParallel(ledger.assignments, async (a) => {
    const inst = (await get(caller, `/v1/instances/${a.instanceId}`)) as {
      tasks: { id: string }[];
    } | null;
    const have = new Set(inst?.tasks.map((t) => t.id));
    if (!inst || !a.taskIds.every((t) => have.has(t))) out.lost.push(`assignment ${a.instanceId}`);
  });
  await eachInParallel(ledger.joins, async (j) => {
    if (!(await get(caller, `/v1/tasks/${j.taskId}`))) out.lost.push(`join task ${j.taskId}`);
  });
  await eachInParallel(ledger.completions, async (c) => {
    const t = (await get(caller, `/v1/tasks/${c.taskId}`)) as {
      status: string;
      completedBy: string | null;
      vars: unknown;
    } | null;
    if (t?.status !== "done" || t.completedBy !== c.by || !isDeepStrictEqual(t.vars, c.vars)) {
      out.lost.push(`completion of ${c.taskId}: ${JSON.stringify(t)}`);
    }
  });
}

export async function readBack(
  bases: readonly string[],
  ledger: Ledger,
  steps: Map<string, StepMark[]>,
): Promise<ReadBack> {
  const out: ReadBack = {
    lost: [],
    badRuns: 0,
    reexecuted: 0,
    rerunInFlight: 0,
    fencedLate: 0,
    rerunDetails: [],
  };
  const caller = await auditRuns(bases, ledger, steps, out);
  await auditInbox(caller, ledger, out);
  return out;
}
