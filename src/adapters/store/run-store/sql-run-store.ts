/**
 * The RunStore port over the same Kysely instance and dialect parts as the
 * human-task store (one pool, one SQLite connection). Where the backends
 * differ — the claim (FOR UPDATE SKIP LOCKED / UPDATE … RETURNING), and PostgreSQL
 * NOTIFY — it branches on the dialect name.
 *
 * Fencing: every write an execution makes is conditional on its lease
 * (lease_owner = owner and status = 'running'); appends are `INSERT … SELECT
 * … FROM runs WHERE <lease>`, so an append by a worker that lost its lease
 * inserts nothing, and the primary key refuses a seq that is already taken.
 */
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import { newId } from "../../../domain/ids.ts";
import { MAX_PAGE_SIZE } from "../../../domain/limits.ts";
import {
  isTerminal,
  type Run,
  type RunEvent,
  type RunSignal,
  type RunStatus,
} from "../../../domain/run.ts";
import { storedRunEvent } from "../../../domain/run-event.ts";
import type { WorkflowFailure } from "../../../domain/workflow-failure.ts";
import {
  initialRun,
  type FinishExtras,
  type HeldRun,
  type Lease,
  type NewRun,
  type RunListQuery,
  type RunStore,
  type SuspendResult,
} from "../../../engine/durable/run-store-port.ts";
import type { StoreSchema } from "../db-schema.ts";
import { DriverErrorKind } from "../dialects/driver-error.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { lit } from "../sql-reads.ts";
import { ensureDefinition } from "../sql/ensure-definition.ts";
import { WriteBatcher } from "./write-batcher.ts";
import type { RunSchema, RunsTable } from "./run-schema.ts";
import {
  completeTree,
  finishRun,
  insertEvent,
  pgFinishRun,
  pgFinishRuns,
  pgInsertEvents,
  pgStartRuns,
  pgStartRun,
  RUNS_CHANNEL,
  startRun,
  type BatchedEvent,
  type EventRow,
  type FinishRow,
  type StartRow,
} from "./run-statements.ts";

type DB = StoreSchema & RunSchema;

/** The PostgreSQL channel a run store notifies when a run becomes runnable. */
export { RUNS_CHANNEL };

/** Thrown inside a transaction to roll it back when a conditional write lost. */
class Fenced extends Error {}

const num = (v: number | string): number => Number(v);
const nnum = (v: number | string | null): number | null => (v === null ? null : Number(v));
const toText = (v: unknown): string => JSON.stringify(v === undefined ? null : v);
const fromText = (v: string | null): unknown => (v === null ? null : JSON.parse(v));
const eventRow = (e: RunEvent): EventRow => ({
  seq: e.seq,
  type: e.type,
  name: e.name,
  at: e.at,
  data: e.data === undefined || e.data === null ? null : JSON.stringify(e.data),
});

export function runFromRow(r: Selectable<RunsTable>): Run {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    workflow: r.workflow,
    status: r.status as RunStatus,
    input: fromText(r.input),
    output: fromText(r.output),
    error: fromText(r.error) as WorkflowFailure | null,
    rootInstanceId: r.root_instance_id,
    parentRunId: r.parent_run_id,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    wakeAt: nnum(r.wake_at),
    leaseOwner: r.lease_owner,
    leaseUntil: nnum(r.lease_until),
    cancelRequested: Number(r.cancel_requested) === 1 || r.cancel_requested === true,
    generation: num(r.generation),
    firstSeq: num(r.first_seq),
  };
}

export class SqlRunStore implements RunStore {
  private readonly db: Kysely<DB>;
  /** (tenant, workflow) → definition id: definitions are never deleted, so this only saves a round trip. */
  private readonly definitionIds = new Map<string, string>();
  /** PostgreSQL: concurrent runs' appends share a statement (see write-batcher.ts). */
  private readonly appends: WriteBatcher<BatchedEvent> | undefined;
  /** PostgreSQL: concurrent starts share a statement too. */
  private readonly starts: WriteBatcher<StartRow> | undefined;
  /** PostgreSQL: and concurrent outcomes. */
  private readonly finishes: WriteBatcher<FinishRow> | undefined;

  constructor(
    db: Kysely<StoreSchema>,
    private readonly parts: StoreDialect,
  ) {
    // The same instance, typed with the durable tables too.
    this.db = db;
    if (this.pg) {
      // `one` keeps the single-run texts: a batch statement of one row costs more
      // (sequential p50 1.68–1.92 ms → 2.03–2.56 ms, interleaved A/B, 2026-11-30).
      this.appends = new WriteBatcher({
        one: (b) => this.insertEvent(this.db, b.lease, b.event),
        many: async (items) => {
          const res = await this.db.executeQuery<{
            tenant_id: string;
            run_id: string;
            seq: string;
          }>(pgInsertEvents(items));
          const written = new Set(
            res.rows.map((r) => `${r.tenant_id}\u0000${r.run_id}\u0000${r.seq}`),
          );
          return items.map((b) =>
            written.has(`${b.lease.tenantId}\u0000${b.lease.runId}\u0000${b.event.seq}`),
          );
        },
        isRetryable: (e) => this.isDuplicateKey(e),
      });
      this.starts = new WriteBatcher({
        one: async (row) => {
          await this.db.executeQuery(pgStartRun(row));
          return true;
        },
        many: async (rows) => {
          await this.db.executeQuery(pgStartRuns(rows));
          return rows.map(() => true);
        },
        isRetryable: (e) => this.isDuplicateKey(e),
      });
      this.finishes = new WriteBatcher({
        one: async (row) => {
          try {
            return (await this.db.executeQuery(pgFinishRun(row))).rows.length === 1;
          } catch (e) {
            if (this.isDuplicateKey(e)) return false;
            throw e;
          }
        },
        many: async (rows) => {
          const res = await this.db.executeQuery<{ tenant_id: string; id: string }>(
            pgFinishRuns(rows),
          );
          const done = new Set(res.rows.map((r) => `${r.tenant_id}\u0000${r.id}`));
          return rows.map((f) => done.has(`${f.lease.tenantId}\u0000${f.lease.runId}`));
        },
        isRetryable: (e) => this.isDuplicateKey(e) || this.isDeadlock(e),
      });
    }
  }

  private isDuplicateKey(e: unknown): boolean {
    return this.parts.classifyError(e) === DriverErrorKind.DuplicateKey;
  }

  /** The statement was rolled back as a whole, so running it again is safe. */
  private isDeadlock(e: unknown): boolean {
    return this.parts.classifyError(e) === DriverErrorKind.Deadlock;
  }

  private get pg(): boolean {
    return this.parts.name === "postgres";
  }

  private async notify(trx: Kysely<DB>): Promise<void> {
    if (this.pg) await sql`select pg_notify(${RUNS_CHANNEL}, '')`.execute(trx);
  }

  private async tx<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T | undefined> {
    try {
      return await this.db.transaction().execute(fn);
    } catch (e) {
      if (e instanceof Fenced) return undefined;
      throw e;
    }
  }

  // ---- runs -------------------------------------------------------------------

  async createRun(r: NewRun): Promise<{ run: Run; created: boolean }> {
    const definitionId = await this.definitionId(r);
    const startedBy =
      r.parentRunId !== null && r.startedBy === "" ? await this.parentStarter(r) : r.startedBy;
    const instanceId = newId(r.now);
    const inputText = toText(r.input);
    // The stored input is JSON: hand back what a read would return.
    const run = { ...initialRun(r, instanceId), input: JSON.parse(inputText) as unknown };
    const row: StartRow = {
      tenantId: r.tenantId,
      runId: r.id,
      workflow: r.workflow,
      instanceId,
      definitionId,
      startedBy,
      // A run's root instance points back at it (process list, inbox).
      vars: JSON.stringify({ runId: r.id }),
      input: inputText,
      status: run.status,
      parentRunId: r.parentRunId,
      now: r.now,
      wakeAt: run.wakeAt!,
      leaseOwner: run.leaseOwner,
      leaseUntil: run.leaseUntil,
      notify: !r.leaseTo,
    };
    try {
      // No lookup first, even for a caller's id: a duplicate fails the insert as a whole.
      if (this.starts) await this.starts.append(row);
      else {
        await this.db.transaction().execute(async (trx) => {
          for (const q of startRun(row)) await trx.executeQuery(q);
        });
      }
    } catch (e) {
      if (!this.isDuplicateKey(e)) throw e;
      const winner = await this.getRun(r.tenantId, r.id);
      if (!winner) throw e;
      return { run: winner, created: false };
    }
    return { run, created: true };
  }

  /** The workflow's definition row (created on first use), cached: definitions are never deleted. */
  private async definitionId(r: NewRun): Promise<string> {
    const key = `${r.tenantId}\u0000${r.workflow}`;
    const known = this.definitionIds.get(key);
    if (known !== undefined) return known;
    const def = await this.db.transaction().execute((trx) =>
      ensureDefinition(trx, this.parts, {
        id: newId(r.now),
        tenantId: r.tenantId,
        key: r.workflow,
        name: r.workflow,
        createdAt: r.now,
      }),
    );
    this.definitionIds.set(key, def.id);
    return def.id;
  }

  /** A child run's process belongs to whoever started the parent. */
  private async parentStarter(r: NewRun): Promise<string> {
    const parent = await this.db
      .selectFrom("runs")
      .innerJoin("instances", (j) =>
        j
          .onRef("instances.tenant_id", "=", "runs.tenant_id")
          .onRef("instances.id", "=", "runs.root_instance_id"),
      )
      .select("instances.started_by")
      .where("runs.tenant_id", "=", r.tenantId)
      .where("runs.id", "=", r.parentRunId!)
      .executeTakeFirst();
    return parent?.started_by ?? `run:${r.parentRunId}`.slice(0, 128);
  }

  async getRun(tenantId: string, id: string): Promise<Run | undefined> {
    const row = await this.db
      .selectFrom("runs")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && runFromRow(row);
  }

  async listRuns(q: RunListQuery): Promise<Run[]> {
    const rows = await this.db
      .selectFrom("runs")
      .selectAll()
      .where("tenant_id", "=", q.tenantId)
      .$if(q.status !== undefined, (b) => b.where("status", "=", q.status!))
      .$if(q.workflow !== undefined, (b) => b.where("workflow", "=", q.workflow!))
      .$if(q.after !== undefined, (b) => b.where("id", ">", q.after!))
      .orderBy("id")
      // One past the largest page: the caller asks for limit + 1 to learn whether more follow.
      .limit(Math.min(Math.max(Math.trunc(q.limit) || 1, 1), MAX_PAGE_SIZE + 1))
      .execute();
    return rows.map(runFromRow);
  }

  async loadHistory(tenantId: string, runId: string, fromSeq: number): Promise<RunEvent[]> {
    const rows = await this.db
      .selectFrom("run_events")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("run_id", "=", runId)
      .where("seq", ">=", fromSeq)
      .orderBy("seq")
      .execute();
    return rows.map((e) => storedRunEvent(num(e.seq), e.type, e.name, num(e.at), fromText(e.data)));
  }

  // ---- claiming and leases ------------------------------------------------------

  async claimRuns(
    owner: string,
    now: number,
    leaseUntil: number,
    limit: number,
    workflows?: readonly string[],
  ): Promise<Run[]> {
    if (limit <= 0 || workflows?.length === 0) return [];
    const wf =
      workflows === undefined
        ? sql`1 = 1`
        : sql`workflow in (${sql.join(workflows.map((w) => sql`${w}`))})`;
    const set = sql`status = 'running', lease_owner = ${owner}, lease_until = ${leaseUntil}, wake_at = ${leaseUntil}, updated_at = ${now}`;
    if (this.parts.name === "postgres") {
      const res = await sql<Selectable<RunsTable>>`
        update runs r set ${set}
        from (select tenant_id, id from runs
              where wake_at <= ${now} and ${wf}
              order by wake_at limit ${limit}
              for update skip locked) c
        where r.tenant_id = c.tenant_id and r.id = c.id
        returning r.*`.execute(this.db);
      return res.rows.map(runFromRow);
    }
    if (this.parts.name === "sqlite") {
      // One connection, one writer at a time: a conditional UPDATE is the claim.
      const res = await sql<Selectable<RunsTable>>`
        update runs set ${set}
        where rowid in (select rowid from runs where wake_at <= ${now} and ${wf}
                        order by wake_at limit ${limit})
        returning *`.execute(this.db);
      return res.rows.map(runFromRow);
    }
    // MariaDB: no UPDATE … RETURNING; lock the rows, then update them.
    return (
      (await this.tx(async (trx) => {
        const res = await sql<Selectable<RunsTable>>`
          select * from runs where wake_at <= ${now} and ${wf}
          order by wake_at limit ${limit} for update skip locked`.execute(trx);
        if (res.rows.length === 0) return [];
        const keys = sql.join(res.rows.map((r) => sql`(${r.tenant_id}, ${r.id})`));
        await sql`update runs set ${set} where (tenant_id, id) in (${keys})`.execute(trx);
        return res.rows.map((r) =>
          runFromRow({
            ...r,
            status: "running",
            lease_owner: owner,
            lease_until: leaseUntil,
            wake_at: leaseUntil,
            updated_at: now,
          }),
        );
      })) ?? []
    );
  }

  async heartbeat(owner: string, now: number, leaseUntil: number): Promise<HeldRun[]> {
    if (this.pg) {
      // SKIP LOCKED: a row that a statement of this worker holds (a batch of
      // outcomes, a suspend) is skipped, not waited for, so the heartbeat never
      // deadlocks with a batch that also locks a running parent. The skipped
      // run's lease is extended next round (heartbeat 1.5 s, lease 5 s), and the
      // read below still reports it as held while it is.
      await sql`with l as (
          select tenant_id, id from runs where lease_owner = ${owner} and status = 'running'
          order by tenant_id, id for update skip locked)
        update runs set lease_until = ${leaseUntil}, wake_at = ${leaseUntil}
        from l where runs.tenant_id = l.tenant_id and runs.id = l.id`.execute(this.db);
    } else {
      await this.db
        .updateTable("runs")
        .set({ lease_until: leaseUntil, wake_at: leaseUntil })
        .where("lease_owner", "=", owner)
        .where("status", "=", lit("running"))
        .execute();
    }
    void now;
    const rows = await this.db
      .selectFrom("runs")
      .select(["tenant_id", "id", "cancel_requested"])
      .where("lease_owner", "=", owner)
      .where("status", "=", lit("running"))
      .execute();
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      id: r.id,
      cancelRequested: Number(r.cancel_requested) === 1 || r.cancel_requested === true,
    }));
  }

  async nextWakeAt(now: number): Promise<number | null> {
    const row = await this.db
      .selectFrom("runs")
      .select((eb) => eb.fn.min("wake_at").as("next"))
      .where("wake_at", ">", now)
      .executeTakeFirst();
    return row?.next == null ? null : Number(row.next);
  }

  // ---- history ---------------------------------------------------------------------

  /** Inserts nothing without the lease; false when fenced (see run-statements.ts). */
  private async insertEvent(db: Kysely<DB>, lease: Lease, row: EventRow): Promise<boolean> {
    try {
      const res = await db.executeQuery(insertEvent(this.parts.name, lease, row));
      return Number(res.numAffectedRows ?? 0n) === 1;
    } catch (e) {
      if (this.isDuplicateKey(e)) return false;
      throw e;
    }
  }

  appendEvent(lease: Lease, event: RunEvent): Promise<boolean> {
    if (this.appends) return this.appends.append({ lease, event: eventRow(event) });
    return this.insertEvent(this.db, lease, eventRow(event));
  }

  async peekSignal(tenantId: string, runId: string, name: string): Promise<RunSignal | undefined> {
    const row = await this.db
      .selectFrom("run_signals")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("run_id", "=", runId)
      .where("name", "=", name)
      .where("consumed_seq", "is", null)
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        name: row.name,
        payload: fromText(row.payload),
        at: num(row.at),
        consumedSeq: nnum(row.consumed_seq),
      }
    );
  }

  async consumeSignal(lease: Lease, signalId: string, event: RunEvent): Promise<boolean> {
    const ok = await this.tx(async (trx) => {
      const res = await trx
        .updateTable("run_signals")
        .set({ consumed_seq: event.seq })
        .where("tenant_id", "=", lease.tenantId)
        .where("run_id", "=", lease.runId)
        .where("id", "=", signalId)
        .where("consumed_seq", "is", null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new Fenced();
      if (!(await this.insertEvent(trx, lease, eventRow(event)))) throw new Fenced();
      return true;
    });
    return ok === true;
  }

  async dropSignals(lease: Lease, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.db
      .updateTable("run_signals")
      .set({ consumed_seq: -1 })
      .where("tenant_id", "=", lease.tenantId)
      .where("run_id", "=", lease.runId)
      .where("name", "in", names)
      .where("consumed_seq", "is", null)
      .execute();
  }

  // ---- transitions -------------------------------------------------------------------

  private held(trx: Kysely<DB>, lease: Lease) {
    return trx
      .updateTable("runs")
      .where("tenant_id", "=", lease.tenantId)
      .where("id", "=", lease.runId)
      .where("lease_owner", "=", lease.owner)
      .where("status", "=", lit("running"));
  }

  async suspend(
    lease: Lease,
    wakeAt: number | null,
    signalNames: readonly string[],
    now: number,
    blocked?: WorkflowFailure,
  ): Promise<SuspendResult> {
    const r = await this.tx(async (trx) => {
      // The UPDATE locks the row first; the checks below are new statements (READ
      // COMMITTED), so a signal or cancel committed by then is seen, and one that
      // commits later finds the run waiting and wakes it (sendSignal).
      const res = await this.held(trx, lease)
        .set({
          status: "waiting",
          wake_at: wakeAt,
          lease_owner: null,
          lease_until: null,
          updated_at: now,
          error: blocked === undefined ? null : toText(blocked),
        })
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new Fenced();
      if (blocked !== undefined) return "suspended" as const;
      const run = await trx
        .selectFrom("runs")
        .select("cancel_requested")
        .where("tenant_id", "=", lease.tenantId)
        .where("id", "=", lease.runId)
        .executeTakeFirst();
      let wake = run !== undefined && Number(run.cancel_requested) === 1;
      if (!wake && signalNames.length > 0) {
        const sig = await trx
          .selectFrom("run_signals")
          .select("id")
          .where("tenant_id", "=", lease.tenantId)
          .where("run_id", "=", lease.runId)
          .where("name", "in", signalNames)
          .where("consumed_seq", "is", null)
          .limit(1)
          .executeTakeFirst();
        wake = sig !== undefined;
      }
      if (!wake) return "suspended" as const;
      await trx
        .updateTable("runs")
        .set({ wake_at: now })
        .where("tenant_id", "=", lease.tenantId)
        .where("id", "=", lease.runId)
        .execute();
      return "wakeNow" as const;
    });
    return r ?? "lost";
  }

  async finish(
    lease: Lease,
    status: "completed" | "failed" | "cancelled",
    output: unknown,
    error: WorkflowFailure | null,
    now: number,
    extras?: FinishExtras,
  ): Promise<boolean> {
    const outputText = output === undefined || output === null ? null : toText(output);
    const errorText = error === null ? null : toText(error);
    const row: FinishRow = {
      lease,
      status,
      output: outputText,
      error: errorText,
      now,
      events: (extras?.events ?? []).map(eventRow),
      signalId: newId(now),
    };
    if (this.finishes) return this.finishes.append(row);
    const ok = await this.tx(async (trx) => {
      // Events first: their insert is fenced by the lease that the UPDATE clears.
      for (const ev of extras?.events ?? []) {
        if (!(await this.insertEvent(trx, lease, eventRow(ev)))) throw new Fenced();
      }
      const res = await trx.executeQuery(finishRun(row));
      if (Number(res.numAffectedRows) !== 1) throw new Fenced();
      // The run's root instance closes with it (the starter's process list).
      const root =
        extras ??
        (await trx
          .selectFrom("runs")
          .select(["root_instance_id as rootInstanceId", "parent_run_id as parentRunId"])
          .where("tenant_id", "=", lease.tenantId)
          .where("id", "=", lease.runId)
          .executeTakeFirst());
      if (root?.rootInstanceId) {
        await trx.executeQuery(completeTree(lease.tenantId, root.rootInstanceId, now));
      }
      if (root?.parentRunId) {
        // Wake the parent waiting in ctx.child, atomically with this outcome.
        await trx
          .insertInto("run_signals")
          .values({
            tenant_id: lease.tenantId,
            run_id: root.parentRunId,
            id: newId(now),
            name: `__child:${lease.runId}`,
            payload: "null",
            at: now,
            consumed_seq: null,
          })
          .execute();
        await this.wake(trx, lease.tenantId, root.parentRunId, now);
      }
      return true;
    });
    return ok === true;
  }

  async continueAsNew(
    lease: Lease,
    input: unknown,
    firstSeq: number,
    now: number,
  ): Promise<boolean> {
    const ok = await this.tx(async (trx) => {
      const res = await this.held(trx, lease)
        .set({
          input: toText(input),
          generation: sql<number>`generation + 1`,
          first_seq: firstSeq,
          updated_at: now,
        })
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new Fenced();
      await trx
        .deleteFrom("run_events")
        .where("tenant_id", "=", lease.tenantId)
        .where("run_id", "=", lease.runId)
        .where("seq", "<", firstSeq)
        .execute();
      return true;
    });
    return ok === true;
  }

  async release(lease: Lease, now: number): Promise<void> {
    await this.held(this.db, lease)
      .set({ lease_owner: null, lease_until: null, wake_at: now, updated_at: now })
      .execute();
  }

  // ---- from outside: signals and cancellation ------------------------------------------

  async sendSignal(
    tenantId: string,
    runId: string,
    signal: { id: string; name: string; payload: unknown },
    now: number,
  ): Promise<boolean | undefined> {
    return this.tx(async (trx) => {
      const run = await trx
        .selectFrom("runs")
        .select("status")
        .where("tenant_id", "=", tenantId)
        .where("id", "=", runId)
        .executeTakeFirst();
      if (run === undefined) return undefined;
      if (isTerminal(run.status as RunStatus)) return false;
      await trx
        .insertInto("run_signals")
        .values({
          tenant_id: tenantId,
          run_id: runId,
          id: signal.id,
          name: signal.name,
          payload: toText(signal.payload),
          at: now,
          consumed_seq: null,
        })
        .execute();
      // After the insert, lock the row: a run suspending concurrently either sees
      // this signal or has committed 'waiting' by the time this UPDATE runs.
      await this.wake(trx, tenantId, runId, now);
      return true;
    });
  }

  /** wake_at = now if the run is waiting; always takes the row lock. */
  private async wake(trx: Kysely<DB>, tenantId: string, runId: string, now: number) {
    await trx
      .updateTable("runs")
      .set({
        wake_at: sql<number>`case when status = 'waiting' then ${now} else wake_at end`,
        updated_at: now,
      })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", runId)
      .where("status", "not in", ["completed", "failed", "cancelled"])
      .execute();
    await this.notify(trx);
  }

  async requestCancel(tenantId: string, runId: string, now: number): Promise<Run | undefined> {
    return this.tx(async (trx) => {
      await trx
        .updateTable("runs")
        .set({ cancel_requested: 1 })
        .where("tenant_id", "=", tenantId)
        .where("id", "=", runId)
        .where("status", "not in", ["completed", "failed", "cancelled"])
        .execute();
      await this.wake(trx, tenantId, runId, now);
      const row = await trx
        .selectFrom("runs")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("id", "=", runId)
        .executeTakeFirst();
      return row && runFromRow(row);
    });
  }
}
