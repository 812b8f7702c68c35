/**
 * Reads of runs and their history, through the query builder (none is on the
 * per-step hot path, so none needs a fixed text).
 */
import { MAX_PAGE_SIZE } from "../../../../domain/limits.ts";
import type { Run, RunEvent } from "../../../../domain/run.ts";
import { storedRunEvent } from "../../../../domain/run-event.ts";
import type { RunListQuery } from "../../../../engine/durable/run-store-port.ts";
import { fromText, num, runFromRow, type RunDb } from "./run-rows.ts";

export async function getRun(db: RunDb, tenantId: string, id: string): Promise<Run | undefined> {
  const row = await db
    .selectFrom("runs")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row && runFromRow(row);
}

export async function listRuns(db: RunDb, q: RunListQuery): Promise<Run[]> {
  const rows = await db
    .selectFrom("runs")
    .selectAll()
    .where("tenant_id", "=", q.tenantId)
    .$if(q.status !== undefined, (b) => b.where("status", "=", q.status!))
    .$if(q.workflow !== undefined, (b) => b.where("workflow", "=", q.workflow!))
    .$if(q.startedBy !== undefined, (b) => b.where("started_by", "=", q.startedBy!))
    .$if(q.createdFrom !== undefined, (b) => b.where("created_at", ">=", q.createdFrom!))
    .$if(q.createdUntil !== undefined, (b) => b.where("created_at", "<", q.createdUntil!))
    .$if(q.after !== undefined, (b) => b.where("id", ">", q.after!))
    .$if(q.before !== undefined, (b) =>
      b.where((eb) =>
        eb.or([
          eb("created_at", "<", q.before!.createdAt),
          eb.and([eb("created_at", "=", q.before!.createdAt), eb("id", "<", q.before!.id)]),
        ]),
      ),
    )
    .$if(q.order !== "newest", (b) => b.orderBy("id"))
    // Newest first walks runs_created_ix (tenant_id, created_at) backwards.
    .$if(q.order === "newest", (b) => b.orderBy("created_at", "desc").orderBy("id", "desc"))
    // One past the largest page: the caller asks for limit + 1 to learn whether more follow.
    .limit(Math.min(Math.max(Math.trunc(q.limit) || 1, 1), MAX_PAGE_SIZE + 1))
    .execute();
  return rows.map(runFromRow);
}

export async function loadHistory(
  db: RunDb,
  tenantId: string,
  runId: string,
  fromSeq: number,
  limit?: number,
): Promise<RunEvent[]> {
  const rows = await db
    .selectFrom("run_events")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("run_id", "=", runId)
    .where("seq", ">=", fromSeq)
    .orderBy("seq")
    .$if(limit !== undefined, (q) => q.limit(limit!))
    .execute();
  return rows.map((e) => storedRunEvent(num(e.seq), e.type, e.name, num(e.at), fromText(e.data)));
}

/** The earliest wake_at after `now`: when the next timer or lapsed lease is due. */
export async function nextWakeAt(db: RunDb, now: number): Promise<number | null> {
  const row = await db
    .selectFrom("runs")
    .select((eb) => eb.fn.min("wake_at").as("next"))
    .where("wake_at", ">", now)
    .executeTakeFirst();
  return row?.next == null ? null : Number(row.next);
}

/** A child run's process belongs to whoever started the parent. */
export async function parentStarter(
  db: RunDb,
  tenantId: string,
  parentRunId: string,
): Promise<string> {
  const parent = await db
    .selectFrom("runs")
    .innerJoin("instances", (j) =>
      j
        .onRef("instances.tenant_id", "=", "runs.tenant_id")
        .onRef("instances.id", "=", "runs.root_instance_id"),
    )
    .select("instances.started_by")
    .where("runs.tenant_id", "=", tenantId)
    .where("runs.id", "=", parentRunId)
    .executeTakeFirst();
  return parent?.started_by ?? `run:${parentRunId}`.slice(0, 128);
}
