/**
 * Wraps a Kysely dialect so that every driver error meaning "the database
 * cannot be reached" (per the dialect's classification, see driver-error.ts)
 * surfaces as the domain's UnavailableError, with the driver's error as its
 * cause. Everything above the store — the engine, the durable runtime, the
 * HTTP error mapping — then knows one error, not three drivers' shapes.
 *
 * The wrap is at the driver, the narrowest point every query, connect, BEGIN,
 * COMMIT and ROLLBACK passes through; errors the store inspects itself
 * (duplicate keys, deadlocks) are not connection errors and pass unchanged.
 */
import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryResult,
  TransactionSettings,
} from "kysely";
import { UnavailableError } from "../../../domain/unavailable.ts";
import { DriverErrorKind, type ClassifyDriverError } from "./driver-error.ts";

const MESSAGE = "the database is unavailable; retry later";

function translate(classify: ClassifyDriverError): (e: unknown) => never {
  return (e) => {
    if (e instanceof UnavailableError || classify(e) !== DriverErrorKind.Unavailable) throw e;
    throw new UnavailableError(MESSAGE, { cause: e });
  };
}

/** The driver's own connection inside ours: its methods expect their own object. */
class Connection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly fail: (e: unknown) => never,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(query).catch(this.fail);
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (e) {
      this.fail(e);
    }
  }
}

const innerOf = (c: DatabaseConnection): DatabaseConnection =>
  c instanceof Connection ? c.inner : c;

function wrapDriver(driver: Driver, classify: ClassifyDriverError): Driver {
  const fail = translate(classify);
  type SavepointOp = NonNullable<Driver["savepoint"]>;
  const savepointOp =
    (name: "savepoint" | "rollbackToSavepoint" | "releaseSavepoint"): SavepointOp =>
    (c, savepoint, compile) =>
      driver[name]!(innerOf(c), savepoint, compile).catch(fail);
  return {
    init: () => driver.init().catch(fail),
    acquireConnection: () => driver.acquireConnection().then((c) => new Connection(c, fail), fail),
    beginTransaction: (c: DatabaseConnection, settings: TransactionSettings) =>
      driver.beginTransaction(innerOf(c), settings).catch(fail),
    commitTransaction: (c: DatabaseConnection) => driver.commitTransaction(innerOf(c)).catch(fail),
    rollbackTransaction: (c: DatabaseConnection) =>
      driver.rollbackTransaction(innerOf(c)).catch(fail),
    // Kysely tests for these methods' presence, so they exist only where the driver's do.
    ...(driver.savepoint && { savepoint: savepointOp("savepoint") }),
    ...(driver.rollbackToSavepoint && { rollbackToSavepoint: savepointOp("rollbackToSavepoint") }),
    ...(driver.releaseSavepoint && { releaseSavepoint: savepointOp("releaseSavepoint") }),
    releaseConnection: (c: DatabaseConnection) => driver.releaseConnection(innerOf(c)),
    destroy: () => driver.destroy(),
  };
}

export function withUnavailableErrors(dialect: Dialect, classify: ClassifyDriverError): Dialect {
  return {
    createDriver: () => wrapDriver(dialect.createDriver(), classify),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
