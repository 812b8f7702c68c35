/** A run and its history events as the API returns them (docs/api.md, Run, History event). */
import type * as Wire from "../../client/wire/index.ts";
import type { Run, RunEvent } from "../../domain/run.ts";
import { hideStack, withoutStack } from "./failure-stacks.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export function runView(r: Run, exposeStacks = false): Wire.Run {
  return {
    runId: r.id,
    workflow: r.workflow,
    status: r.status,
    input: r.input ?? null,
    output: r.output ?? null,
    error: exposeStacks ? (r.error ?? null) : hideStack(r.error ?? null),
    rootInstanceId: r.rootInstanceId,
    parentRunId: r.parentRunId,
    startedBy: r.startedBy,
    cancelRequested: r.cancelRequested,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}

export function eventView(e: RunEvent, exposeStacks = false): Wire.RunEvent {
  const shown = exposeStacks ? e : withoutStack(e);
  return { ...shown, at: iso(shown.at) };
}
