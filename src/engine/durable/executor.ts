/**
 * Executes one leased run: loads its history, runs the workflow function with a
 * replay context, and records the outcome (completed, failed, cancelled,
 * waiting, next generation). The run stays in memory for its whole execution:
 * there is no replay per step, only after a suspension or a takeover.
 */
import type { Run } from "../../domain/run.ts";
import {
  CancelledFailure,
  NonDeterminismError,
  RunQuarantined,
  toFailure,
  type WorkflowFailure,
} from "../../domain/workflow-failure.ts";
import { DEFAULT_CONTEXT_OPTIONS, RunContext, type ContextOptions } from "./context.ts";
import { ContinueAsNew, LeaseLost, StoreFailed, Suspend } from "./halts.ts";
import { toJson } from "./json-form.ts";
import { LeaseTerm } from "./lease-term.ts";
import type { WorkflowRegistry } from "./registry.ts";
import type { FinishExtras, Lease, RunStore } from "./run-store-port.ts";

export type Outcome =
  "completed" | "failed" | "cancelled" | "waiting" | "lost" | "unknown" | "quarantined";

export interface ExecuteDeps {
  store: RunStore;
  registry: WorkflowRegistry;
  owner: string;
  contextOptions?: Partial<ContextOptions>;
  /** Told about the live context (so heartbeats can pass cancel / lease loss to it). */
  onContext?: (ctx: RunContext | undefined) => void;
  /** When the caller knows the run has no history (just started), skips loading it. */
  fresh?: boolean;
  /** Until when the lease is held (the worker renews it on heartbeats); default: for ever. */
  term?: LeaseTerm;
}

export async function executeRun(run: Run, deps: ExecuteDeps): Promise<Outcome> {
  const { store, registry } = deps;
  const options: ContextOptions = { ...DEFAULT_CONTEXT_OPTIONS, ...deps.contextOptions };
  const lease: Lease = { tenantId: run.tenantId, runId: run.id, owner: deps.owner };
  let current = run;
  let fresh = deps.fresh === true;
  const term = deps.term ?? LeaseTerm.unbounded(options.now);
  // Claimed once more after executions that all ended without parking: replaying it
  // again would crash (or freeze, or run out of memory) again, at every start.
  if (run.stalledExecutions > options.quarantineAfter) {
    const failure = toFailure(new RunQuarantined(run.stalledExecutions - 1));
    return (await store.quarantine(lease, failure, options.now())) ? "quarantined" : "lost";
  }
  try {
    for (;;) {
      const def = registry.get(current.workflow);
      if (def === undefined) {
        await store.release(lease, options.now());
        return "unknown";
      }
      const events = fresh ? [] : await store.loadHistory(run.tenantId, run.id, current.firstSeq);
      if (current.cancelRequested && events.length === 0) {
        const failure = toFailure(new CancelledFailure());
        const ok = await store.finish(lease, "cancelled", null, failure, options.now());
        return ok ? "cancelled" : "lost";
      }
      const ctx = new RunContext(current, events, store, lease, def.options, options, term);
      deps.onContext?.(ctx);

      let output: unknown;
      let error: unknown;
      let failed = false;
      try {
        // Suspended once every ctx call is parked (several waits may be pending).
        output = toJson(await Promise.race([def.fn(ctx, current.input as never), ctx.suspended]));
      } catch (e) {
        failed = true;
        error = e;
      }
      ctx.stopSuspending();
      let compensationFailures: WorkflowFailure[] = [];
      if (failed && ctx.halted === undefined && ctx.compensations.length > 0) {
        try {
          compensationFailures = await ctx.compensate();
        } catch {
          // a halt inside a compensation: handled below
        }
      }
      await ctx.settle();

      let halt = ctx.halted;
      if (halt !== undefined && !(halt instanceof LeaseLost) && !(halt instanceof StoreFailed)) {
        // Parking or moving on: the deferred step completions are written first.
        try {
          await ctx.flushTail();
        } catch {
          halt = ctx.halted;
        }
      }
      const now = options.now();
      if (halt instanceof LeaseLost) return "lost";
      // The worker logs it and releases the run; nothing of this execution is recorded.
      if (halt instanceof StoreFailed) throw halt.cause;
      const extras = (): FinishExtras => ({
        rootInstanceId: current.rootInstanceId,
        parentRunId: current.parentRunId,
        events: ctx.takeTail(),
      });
      if (halt instanceof NonDeterminismError) {
        // Blocked, not failed (as Temporal does): the history is intact, so deploying
        // fixed code resumes the run. No compensation; retried after a backoff.
        const failure = toFailure(halt);
        if (!ctx.hasBlockEvent(failure.message) && !(await ctx.recordBlocked(failure, now))) {
          return "lost";
        }
        const wakeAt = now + options.nondeterminismBackoffMs;
        const r = await store.suspend(lease, wakeAt, [], now, failure);
        return r === "lost" ? "lost" : "waiting";
      }
      if (halt instanceof ContinueAsNew) {
        const firstSeq = ctx.endSeq;
        if (!(await store.continueAsNew(lease, halt.input, firstSeq, now))) return "lost";
        current = { ...current, input: halt.input, generation: current.generation + 1, firstSeq };
        current.cancelRequested = ctx.cancelRequested;
        fresh = true;
        continue;
      }
      if (halt instanceof Suspend) {
        const r = await store.suspend(lease, halt.wakeAt, halt.signalNames, now);
        return r === "lost" ? "lost" : "waiting";
      }
      if (!failed) {
        const ok = await store.finish(lease, "completed", output, null, now, extras());
        return ok ? "completed" : "lost";
      }
      const failure = toFailure(error);
      if (compensationFailures.length > 0) {
        failure.message +=
          "; compensation failed: " +
          compensationFailures.map((f) => `${f.name}: ${f.message}`).join("; ");
      }
      const status = error instanceof CancelledFailure ? "cancelled" : "failed";
      return (await store.finish(lease, status, null, failure, now, extras())) ? status : "lost";
    }
  } finally {
    deps.onContext?.(undefined);
  }
}
