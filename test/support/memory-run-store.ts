/**
 * An in-memory RunStore for unit tests of the durable runtime (and the
 * reference behaviour the SQL store's contract test checks).
 */
import { isTerminal, type Run, type RunEvent, type RunSignal } from "../../src/domain/run.ts";
import {
  initialRun,
  signalRefusal,
  type FinishExtras,
  type HeldRun,
  type Lease,
  type NewRun,
  type RunListQuery,
  type RunStore,
  type ServedKind,
  type ServedRecord,
  type SignalCaps,
  type SignalRefused,
  type SuspendResult,
} from "../../src/engine/durable/run-store-port.ts";
import type { WorkflowFailure } from "../../src/domain/workflow-failure.ts";
import type { RunPosition } from "../../src/engine/durable/run-list-order.ts";

const key = (t: string, id: string) => `${t}\u0000${id}`;
const clone = <T>(v: T): T => structuredClone(v);

export class MemoryRunStore implements RunStore {
  readonly runs = new Map<string, Run>();
  readonly events = new Map<string, Map<number, RunEvent>>();
  /** The highest seq each run's last claim saw (stalled_seq). */
  private readonly stalledSeq = new Map<string, number>();
  readonly signals = new Map<string, RunSignal[]>();
  /** workflow \0 node → seen_at. */
  readonly served = new Map<string, number>();
  /** Counts calls, for tests that check round trips. */
  calls = 0;

  createRun(r: NewRun): Promise<{ run: Run; created: boolean }> {
    this.calls++;
    const k = key(r.tenantId, r.id);
    const known = this.runs.get(k);
    if (known) return Promise.resolve({ run: clone(known), created: false });
    const run = { ...initialRun(r, r.rootInstanceId ?? null), input: clone(r.input) };
    this.runs.set(k, run);
    this.events.set(k, new Map());
    this.signals.set(k, []);
    return Promise.resolve({ run: clone(run), created: true });
  }

  getRun(tenantId: string, id: string): Promise<Run | undefined> {
    const r = this.runs.get(key(tenantId, id));
    return Promise.resolve(r && clone(r));
  }

  listRuns(q: RunListQuery): Promise<Run[]> {
    const out = [...this.runs.values()]
      .filter(
        (r) =>
          r.tenantId === q.tenantId &&
          (q.status === undefined || r.status === q.status) &&
          (q.workflow === undefined || r.workflow === q.workflow) &&
          (q.startedBy === undefined || r.startedBy === q.startedBy) &&
          (q.createdFrom === undefined || r.createdAt >= q.createdFrom) &&
          (q.createdUntil === undefined || r.createdAt < q.createdUntil) &&
          (q.after === undefined || r.id > q.after) &&
          (q.before === undefined || isBefore(r, q.before)),
      )
      .sort((a, b) => (q.order === "newest" ? newestFirst(a, b) : byId(a, b)))
      .slice(0, q.limit);
    return Promise.resolve(clone(out));
  }

  loadHistory(
    tenantId: string,
    runId: string,
    fromSeq: number,
    limit?: number,
  ): Promise<RunEvent[]> {
    this.calls++;
    const m = this.events.get(key(tenantId, runId)) ?? new Map<number, RunEvent>();
    const out = [...m.values()].filter((e) => e.seq >= fromSeq).sort((a, b) => a.seq - b.seq);
    return Promise.resolve(clone(limit === undefined ? out : out.slice(0, limit)));
  }

  claimRuns(
    owner: string,
    now: number,
    leaseUntil: number,
    limit: number,
    workflows?: readonly string[],
  ): Promise<Run[]> {
    this.calls++;
    const due = [...this.runs.values()]
      .filter(
        (r) =>
          r.wakeAt !== null &&
          r.wakeAt <= now &&
          (workflows === undefined || workflows.includes(r.workflow)),
      )
      .sort((a, b) => a.wakeAt! - b.wakeAt!)
      .slice(0, limit);
    for (const r of due) {
      r.status = "running";
      r.leaseOwner = owner;
      r.leaseUntil = leaseUntil;
      r.wakeAt = leaseUntil;
      r.updatedAt = now;
      // As the SQL claim: the count starts again when the history grew since the last claim.
      const k = key(r.tenantId, r.id);
      const seen = Math.max(-1, ...(this.events.get(k)?.keys() ?? []));
      r.stalledExecutions = seen > (this.stalledSeq.get(k) ?? -1) ? 1 : r.stalledExecutions + 1;
      this.stalledSeq.set(k, seen);
    }
    return Promise.resolve(clone(due));
  }

  heartbeat(owner: string, now: number, leaseUntil: number): Promise<HeldRun[]> {
    const held: HeldRun[] = [];
    for (const r of this.runs.values()) {
      if (r.leaseOwner === owner && r.status === "running") {
        r.leaseUntil = leaseUntil;
        r.wakeAt = leaseUntil;
        held.push({ tenantId: r.tenantId, id: r.id, cancelRequested: r.cancelRequested });
      }
    }
    void now;
    return Promise.resolve(held);
  }

  nextWakeAt(now: number): Promise<number | null> {
    let best: number | null = null;
    for (const r of this.runs.values()) {
      if (r.wakeAt !== null && r.wakeAt > now && (best === null || r.wakeAt < best))
        best = r.wakeAt;
    }
    return Promise.resolve(best);
  }

  private held(lease: Lease): Run | undefined {
    const r = this.runs.get(key(lease.tenantId, lease.runId));
    return r && r.leaseOwner === lease.owner && r.status === "running" ? r : undefined;
  }

  appendEvent(lease: Lease, event: RunEvent): Promise<boolean> {
    this.calls++;
    const r = this.held(lease);
    const m = this.events.get(key(lease.tenantId, lease.runId));
    if (!r || !m || m.has(event.seq)) return Promise.resolve(false);
    m.set(event.seq, clone(event));
    return Promise.resolve(true);
  }

  peekSignal(tenantId: string, runId: string, name: string): Promise<RunSignal | undefined> {
    this.calls++;
    const s = (this.signals.get(key(tenantId, runId)) ?? []).find(
      (x) => x.name === name && x.consumedSeq === null,
    );
    return Promise.resolve(s && clone(s));
  }

  consumeSignal(lease: Lease, signalId: string, event: RunEvent): Promise<boolean> {
    this.calls++;
    const k = key(lease.tenantId, lease.runId);
    const s = (this.signals.get(k) ?? []).find((x) => x.id === signalId);
    const m = this.events.get(k);
    if (!this.held(lease) || !s || s.consumedSeq !== null || !m || m.has(event.seq))
      return Promise.resolve(false);
    m.set(event.seq, clone(event));
    s.consumedSeq = event.seq;
    return Promise.resolve(true);
  }

  dropSignals(lease: Lease, names: readonly string[]): Promise<void> {
    for (const s of this.signals.get(key(lease.tenantId, lease.runId)) ?? []) {
      if (s.consumedSeq === null && names.includes(s.name)) s.consumedSeq = -1;
    }
    return Promise.resolve();
  }

  suspend(
    lease: Lease,
    wakeAt: number | null,
    signalNames: readonly string[],
    now: number,
    blocked?: WorkflowFailure,
  ): Promise<SuspendResult> {
    this.calls++;
    const r = this.held(lease);
    if (!r) return Promise.resolve("lost");
    r.error = blocked === undefined ? null : clone(blocked);
    const pending =
      blocked === undefined &&
      (this.signals.get(key(lease.tenantId, lease.runId)) ?? []).some(
        (s) => s.consumedSeq === null && signalNames.includes(s.name),
      );
    const wakeNow = (blocked === undefined && r.cancelRequested) || pending;
    r.status = "waiting";
    r.stalledExecutions = 0;
    r.wakeAt = wakeNow ? now : wakeAt;
    r.leaseOwner = null;
    r.leaseUntil = null;
    r.updatedAt = now;
    return Promise.resolve(wakeNow ? "wakeNow" : "suspended");
  }

  finish(
    lease: Lease,
    status: "completed" | "failed" | "cancelled",
    output: unknown,
    error: WorkflowFailure | null,
    now: number,
    extras?: FinishExtras,
  ): Promise<boolean> {
    this.calls++;
    const r = this.held(lease);
    if (!r) return Promise.resolve(false);
    const m = this.events.get(key(lease.tenantId, lease.runId))!;
    if (extras?.events.some((e) => m.has(e.seq))) return Promise.resolve(false);
    for (const e of extras?.events ?? []) m.set(e.seq, clone(e));
    r.status = status;
    r.output = clone(output ?? null);
    r.error = clone(error);
    r.wakeAt = null;
    r.leaseOwner = null;
    r.leaseUntil = null;
    r.updatedAt = now;
    if (r.parentRunId !== null) {
      const name = `__child:${r.id}`;
      void this.sendSignal(
        r.tenantId,
        r.parentRunId,
        { id: `c-${r.id}`, name, payload: null },
        now,
      );
    }
    return Promise.resolve(true);
  }

  continueAsNew(lease: Lease, input: unknown, firstSeq: number, now: number): Promise<boolean> {
    this.calls++;
    const r = this.held(lease);
    if (!r) return Promise.resolve(false);
    const m = this.events.get(key(lease.tenantId, lease.runId))!;
    for (const s of [...m.keys()]) if (s < firstSeq) m.delete(s);
    r.input = clone(input);
    r.generation += 1;
    r.firstSeq = firstSeq;
    r.updatedAt = now;
    r.stalledExecutions = 0;
    return Promise.resolve(true);
  }

  quarantine(lease: Lease, failure: WorkflowFailure, now: number): Promise<boolean> {
    this.calls++;
    const r = this.held(lease);
    if (!r) return Promise.resolve(false);
    r.status = "quarantined";
    r.error = clone(failure);
    r.wakeAt = null;
    r.leaseOwner = null;
    r.leaseUntil = null;
    r.updatedAt = now;
    return Promise.resolve(true);
  }

  release(lease: Lease, now: number): Promise<void> {
    const r = this.held(lease);
    if (r) {
      r.leaseOwner = null;
      r.leaseUntil = null;
      r.wakeAt = now;
      r.stalledExecutions = Math.max(0, r.stalledExecutions - 1);
    }
    return Promise.resolve();
  }

  sendSignal(
    tenantId: string,
    runId: string,
    signal: { id: string; name: string; payload: unknown },
    now: number,
    caps?: SignalCaps,
  ): Promise<boolean | undefined | SignalRefused> {
    const k = key(tenantId, runId);
    const r = this.runs.get(k);
    if (!r) return Promise.resolve(undefined);
    if (isTerminal(r.status)) return Promise.resolve(false);
    const pending = this.signals.get(k)!.filter((s) => s.consumedSeq === null).length;
    const seqs = [...this.events.get(k)!.keys()];
    const length = seqs.length === 0 ? 0 : Math.max(...seqs) - r.firstSeq + 1;
    const refused = signalRefusal(caps, pending, length);
    if (refused !== undefined) return Promise.resolve(refused);
    this.signals.get(k)!.push({ ...clone(signal), at: now, consumedSeq: null });
    if (r.status === "waiting") r.wakeAt = now;
    return Promise.resolve(true);
  }

  requestCancel(tenantId: string, runId: string, now: number): Promise<Run | undefined> {
    const r = this.runs.get(key(tenantId, runId));
    if (!r) return Promise.resolve(undefined);
    if (!isTerminal(r.status)) {
      r.cancelRequested = true;
      if (r.status === "waiting") r.wakeAt = now;
      r.updatedAt = now;
    }
    return Promise.resolve(clone(r));
  }

  recordServed(r: ServedRecord): Promise<{ recorded: number; forgotten: number }> {
    let forgotten = 0;
    for (const [k, seenAt] of this.served) {
      if (seenAt < r.forgetBefore) {
        this.served.delete(k);
        forgotten++;
      }
    }
    for (const w of r.workflows) this.served.set(key(w, r.node), r.now);
    const steps = r.steps ?? [];
    for (const s of steps) this.served.set(key(`step\u0001${s}`, r.node), r.now);
    return Promise.resolve({ recorded: r.workflows.length + steps.length, forgotten });
  }

  lastServed(name: string, kind: ServedKind = "workflow"): Promise<number | null> {
    let last: number | null = null;
    const prefix = key(kind === "step" ? `step\u0001${name}` : name, "");
    for (const [k, seenAt] of this.served) {
      if (k.startsWith(prefix) && (last === null || seenAt > last)) last = seenAt;
    }
    return Promise.resolve(last);
  }

  /** Test helper: simulate an expired lease (dead worker). */
  expireLease(tenantId: string, runId: string, now: number): void {
    const r = this.runs.get(key(tenantId, runId))!;
    r.leaseUntil = now - 1;
    r.wakeAt = now - 1;
  }
}

const byId = (a: Run, b: Run) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const newestFirst = (a: Run, b: Run) => b.createdAt - a.createdAt || byId(b, a);
/** Strictly after `p` in newest-first order. */
const isBefore = (r: Run, p: RunPosition) =>
  r.createdAt < p.createdAt || (r.createdAt === p.createdAt && r.id < p.id);
