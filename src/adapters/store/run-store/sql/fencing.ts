/**
 * Fencing: every write an execution makes is conditional on its lease
 * (lease_owner = owner and status = 'running'). A conditional write that
 * changed nothing throws `Fenced` inside its transaction, which rolls the
 * transaction back and reports "lost" to the caller instead of an error.
 */
import type { Transaction } from "kysely";
import type { StoreSchema } from "../../db-schema.ts";
import { DriverErrorKind } from "../../dialects/driver-error.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { lit } from "../../sql-reads.ts";
import type { RunSchema } from "../run-schema.ts";
import type { LeaseKey, RunDb } from "./run-rows.ts";

/** Thrown inside a transaction to roll it back when a conditional write lost. */
export class Fenced extends Error {}

/** `fn` in a transaction; undefined when it threw Fenced. */
export async function fencedTx<T>(
  db: RunDb,
  fn: (trx: Transaction<StoreSchema & RunSchema>) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await db.transaction().execute(fn);
  } catch (e) {
    if (e instanceof Fenced) return undefined;
    throw e;
  }
}

/** An UPDATE of the run that changes it only while `lease` holds. */
export function updateHeld(db: RunDb, lease: LeaseKey) {
  return db
    .updateTable("runs")
    .where("tenant_id", "=", lease.tenantId)
    .where("id", "=", lease.runId)
    .where("lease_owner", "=", lease.owner)
    .where("status", "=", lit("running"));
}

/** A taken seq or run id: the primary key refused the write. */
export function isDuplicateKey(parts: StoreDialect, e: unknown): boolean {
  return parts.classifyError(e) === DriverErrorKind.DuplicateKey;
}

/** The statement was rolled back as a whole, so running it again is safe. */
export function isDeadlock(parts: StoreDialect, e: unknown): boolean {
  return parts.classifyError(e) === DriverErrorKind.Deadlock;
}
