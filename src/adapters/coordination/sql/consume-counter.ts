/**
 * The consume of a rate limiter: one upsert that decides and counts in the
 * row it locks and returns what it decided. Fixed texts (one per backend)
 * with named parameters, run without the query builder: composing this
 * statement from ~25 Kysely fragments on every call cost more CPU than SQLite
 * spent executing it (6.5k consumes/s against 28k cache sets/s at 32 in
 * flight, `npm run bench -- coordination`, 2026-12-01).
 *
 * In the update branch every expression reads the row as it was, except on
 * MariaDB, which assigns left to right and lets later expressions see earlier
 * assignments: hence `taken` first, `points` reading the new `taken` there,
 * and window_start last.
 *
 * Parameters: start (this window's start), W (window length), n (points
 * asked), cap, weight (the previous window's weight; 0 for fixed windows),
 * first (points taken when the row is new: n, or 0 when n > cap), expiresAt.
 */
import { statement, type Bind } from "../../store/sql/statement.ts";

export interface ConsumeParams {
  tenant: string;
  hash: string;
  start: number;
  W: number;
  n: number;
  cap: number;
  weight: number;
  first: number;
  expiresAt: number;
}

export interface CounterRow {
  window_start: unknown;
  points: unknown;
  prev_points: unknown;
  taken: unknown;
}

/** `i` and `r` spell a whole number and a fraction; PostgreSQL needs them cast (see int()). */
function text(backend: "postgres" | "mysql" | "sqlite"): string {
  const pg = backend === "postgres";
  const i = (name: string) => (pg ? `cast(:${name} as bigint)` : `:${name}`);
  const r = (name: string) => (pg ? `cast(:${name} as double precision)` : `:${name}`);
  const c = (column: string) => `coord_rate_counters.${column}`;
  const newWindow = `(${i("start")} > ${c("window_start")})`;
  const prev = `(case when ${newWindow}
      then (case when ${i("start")} = ${c("window_start")} + ${i("W")} then ${c("points")} else 0 end)
      else ${c("prev_points")} end)`;
  const current = `(case when ${newWindow} then 0 else ${c("points")} end)`;
  const taken = `(case when (${prev} * ${r("weight")} + ${current} + ${i("n")} <= ${i("cap")})
      then ${i("n")} else 0 end)`;
  const insert = `insert into coord_rate_counters
      (tenant_id, key_hash, window_start, points, prev_points, taken, expires_at)
    values (:tenant, :hash, ${i("start")}, ${i("first")}, 0, ${i("first")}, ${i("expiresAt")})`;
  const assignments = `
      taken = ${taken},
      prev_points = ${prev},
      points = ${current} + ${backend === "mysql" ? "taken" : taken},
      expires_at = case when ${newWindow} then ${i("expiresAt")} else ${c("expires_at")} end,
      window_start = case when ${newWindow} then ${i("start")} else ${c("window_start")} end`;
  const returning = "returning window_start, points, prev_points, taken";
  return backend === "mysql"
    ? `${insert} on duplicate key update ${assignments} ${returning}`
    : `${insert} on conflict (tenant_id, key_hash) do update set ${assignments} ${returning}`;
}

const STATEMENTS: Record<"postgres" | "mysql" | "sqlite", Bind<ConsumeParams, CounterRow>> = {
  postgres: statement<ConsumeParams, CounterRow>(text("postgres")).numbered,
  mysql: statement<ConsumeParams, CounterRow>(text("mysql")).positional,
  sqlite: statement<ConsumeParams, CounterRow>(text("sqlite")).positional,
};

export const consumeCounter = (backend: "postgres" | "mysql" | "sqlite") => STATEMENTS[backend];
