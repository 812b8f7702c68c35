/**
 * Claiming runnable runs: every run whose wake_at has passed (a new run, a
 * timer, a lease that lapsed) becomes `running` under the claimer's lease,
 * oldest wake_at first, at most `limit` of them. Each claim counts one more
 * stalled execution, or starts the count again at 1 when the run's history
 * grew since the last claim (progress: a crash or kill that interrupted a run
 * which was getting somewhere is not held against it); parking resets it
 * (014-run-quarantine.ts). The history's highest seq is one index seek on
 * run_events' primary key per claimed run.
 *
 * Three shapes, by what the database can do:
 * - SKIP LOCKED, UPDATE … FROM and RETURNING (PostgreSQL): one statement;
 *   rows another worker is claiming are passed over, not waited for.
 * - No row locks (SQLite: one connection, one writer at a time): a
 *   conditional UPDATE … RETURNING is the claim.
 * - Otherwise (MariaDB: no UPDATE … RETURNING): lock the rows with SKIP
 *   LOCKED, then update them, in one transaction.
 */
import { sql, type RawBuilder, type Selectable } from "kysely";
import type { Run } from "../../../../domain/run.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { RunsTable } from "../run-schema.ts";
import { fencedTx } from "./fencing.ts";
import { runFromRow, type RunDb } from "./run-rows.ts";

export interface ClaimQuery {
  owner: string;
  now: number;
  leaseUntil: number;
  limit: number;
  workflows?: readonly string[];
}

export async function claimRuns(db: RunDb, parts: StoreDialect, q: ClaimQuery): Promise<Run[]> {
  const { owner, now, leaseUntil, limit, workflows } = q;
  if (limit <= 0 || workflows?.length === 0) return [];
  const wf =
    workflows === undefined
      ? sql`1 = 1`
      : sql`workflow in (${sql.join(workflows.map((w) => sql`${w}`))})`;
  const set = (target: string) => {
    const seen = highestSeq(target);
    // stalled_executions first: MariaDB evaluates SET left to right, on values already set.
    return sql`status = 'running', lease_owner = ${owner}, lease_until = ${leaseUntil},
      wake_at = ${leaseUntil}, updated_at = ${now},
      stalled_executions = case when ${seen} > coalesce(${sql.ref(`${target}.stalled_seq`)}, -1)
        then 1 else ${sql.ref(`${target}.stalled_executions`)} + 1 end,
      stalled_seq = ${seen}`;
  };
  if (parts.skipLocked && parts.updateFrom && parts.updateReturning) {
    const res = await sql<Selectable<RunsTable>>`
      update runs r set ${set("r")}
      from (select tenant_id, id from runs
            where wake_at <= ${now} and ${wf}
            order by wake_at limit ${limit}
            for update skip locked) c
      where r.tenant_id = c.tenant_id and r.id = c.id
      returning r.*`.execute(db);
    return res.rows.map(runFromRow);
  }
  if (!parts.rowLocks && parts.updateReturning) {
    // One connection, one writer at a time: a conditional UPDATE is the claim.
    const res = await sql<Selectable<RunsTable>>`
      update runs set ${set("runs")}
      where rowid in (select rowid from runs where wake_at <= ${now} and ${wf}
                      order by wake_at limit ${limit})
      returning *`.execute(db);
    return res.rows.map(runFromRow);
  }
  // No UPDATE … RETURNING: lock the rows, then update them.
  return (
    (await fencedTx(db, async (trx) => {
      const res = await sql<Selectable<RunsTable> & { seen: number | string }>`
        select runs.*, ${highestSeq("runs")} as seen from runs where wake_at <= ${now} and ${wf}
        order by wake_at limit ${limit} for update skip locked`.execute(trx);
      if (res.rows.length === 0) return [];
      const keys = sql.join(res.rows.map((r) => sql`(${r.tenant_id}, ${r.id})`));
      await sql`update runs set ${set("runs")} where (tenant_id, id) in (${keys})`.execute(trx);
      return res.rows.map(({ seen, ...r }) =>
        runFromRow({
          ...r,
          status: "running",
          lease_owner: owner,
          lease_until: leaseUntil,
          wake_at: leaseUntil,
          updated_at: now,
          stalled_executions:
            Number(seen) > Number(r.stalled_seq ?? -1) ? 1 : Number(r.stalled_executions) + 1,
          stalled_seq: Number(seen),
        }),
      );
    })) ?? []
  );
}

/** The highest seq of the run's history (-1: none), for the row of `target`. */
function highestSeq(target: string): RawBuilder<number> {
  return sql<number>`coalesce((select max(e.seq) from run_events e
    where e.tenant_id = ${sql.ref(`${target}.tenant_id`)}
      and e.run_id = ${sql.ref(`${target}.id`)}), -1)`;
}
