/**
 * Claiming runnable runs: every run whose wake_at has passed (a new run, a
 * timer, a lease that lapsed) becomes `running` under the claimer's lease,
 * oldest wake_at first, at most `limit` of them. Each claim counts one more
 * stalled execution (reset when the run parks; see 014-run-quarantine.ts).
 *
 * Three shapes, by what the database can do:
 * - SKIP LOCKED, UPDATE … FROM and RETURNING (PostgreSQL): one statement;
 *   rows another worker is claiming are passed over, not waited for.
 * - No row locks (SQLite: one connection, one writer at a time): a
 *   conditional UPDATE … RETURNING is the claim.
 * - Otherwise (MariaDB: no UPDATE … RETURNING): lock the rows with SKIP
 *   LOCKED, then update them, in one transaction.
 */
import { sql, type Selectable } from "kysely";
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
  const set = sql`status = 'running', lease_owner = ${owner}, lease_until = ${leaseUntil}, wake_at = ${leaseUntil}, updated_at = ${now}, stalled_executions = stalled_executions + 1`;
  if (parts.skipLocked && parts.updateFrom && parts.updateReturning) {
    const res = await sql<Selectable<RunsTable>>`
      update runs r set ${set}
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
      update runs set ${set}
      where rowid in (select rowid from runs where wake_at <= ${now} and ${wf}
                      order by wake_at limit ${limit})
      returning *`.execute(db);
    return res.rows.map(runFromRow);
  }
  // No UPDATE … RETURNING: lock the rows, then update them.
  return (
    (await fencedTx(db, async (trx) => {
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
          stalled_executions: Number(r.stalled_executions) + 1,
        }),
      );
    })) ?? []
  );
}
