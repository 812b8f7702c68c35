/**
 * PostgreSQL (pg). READ COMMITTED (the server default) is what the engine
 * expects: every statement sees the rows committed before it started, so a
 * statement that runs after waiting on a row lock sees the winner's writes.
 */
import { pgDriver } from "../../../drivers.ts";
import { PostgresDialect } from "kysely";
import { guardConnectionErrors } from "./connection-errors.ts";
import { PreparingPool } from "./prepared-statements.ts";
import type { StoreDialect } from "../store-dialect.ts";
import { classifyPgError } from "./driver-errors.ts";

/**
 * A host that drops packets would otherwise make the first connect hang for the
 * OS TCP timeout (~2 minutes on Linux); 10 s is long enough for a cold server.
 */
const CONNECT_TIMEOUT_MS = 10_000;

export function postgresDialect(url: string, poolSize: number, target: string): StoreDialect {
  const createPool = () => {
    const pool = new (pgDriver().Pool)({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    return Promise.resolve(new PreparingPool(guardConnectionErrors(pool)));
  };
  return {
    name: "postgres",
    kysely: new PostgresDialect({ pool: createPool }),
    rowLocks: true,
    lateralUnnest: true,
    updateReturning: true,
    writableCte: true,
    lockOfTable: true,
    straightJoin: false,
    partialIndexes: true,
    insertIgnore: "on-conflict-do-nothing",
    upsert: "on-conflict",
    sequentialAssignments: false,
    deleteLimit: false,
    castParams: true,
    sessionLocks: "advisory",
    growingId: "bigserial",
    triggerFunctions: true,
    lateStatistics: true,
    processLock: null,
    jsonText: "text",
    tableOptions: null,
    exactText: null,
    skipLocked: true,
    updateFrom: true,
    arrayParams: true,
    listenNotify: true,
    paramStyle: "numbered",
    classifyError: classifyPgError,
    target,
  };
}
