/**
 * The consume of a rate limiter: one upsert that decides and counts in the
 * row it locks and returns what it decided. Fixed texts (one per backend)
 * with named parameters, run without the query builder: composing this
 * statement from ~25 Kysely fragments on every call cost more CPU than SQLite
 * spent executing it (6.5k consumes/s against 28k cache sets/s at 32 in
 * flight, `npm run bench -- coordination`, 2026-12-01). The text depends on
 * the dialect's flags only, and is resolved once per distinct text.
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
import type { SqlDialect } from "../coordination-context.ts";

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

type TextFlags = Pick<SqlDialect, "castParams" | "sequentialAssignments" | "upsert">;

/** `i` and `r` spell a whole number and a fraction; PostgreSQL needs them cast (see int()). */
function text(d: TextFlags): string {
  const cast = d.castParams;
  const i = (name: string) => (cast ? `cast(:${name} as bigint)` : `:${name}`);
  const r = (name: string) => (cast ? `cast(:${name} as double precision)` : `:${name}`);
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
      points = ${current} + ${d.sequentialAssignments ? "taken" : taken},
      expires_at = case when ${newWindow} then ${i("expiresAt")} else ${c("expires_at")} end,
      window_start = case when ${newWindow} then ${i("start")} else ${c("window_start")} end`;
  const returning = "returning window_start, points, prev_points, taken";
  return d.upsert === "on-duplicate-key"
    ? `${insert} on duplicate key update ${assignments} ${returning}`
    : `${insert} on conflict (tenant_id, key_hash) do update set ${assignments} ${returning}`;
}

/** Bound statements by placeholder style and text: one per dialect a process uses. */
const STATEMENTS = new Map<string, Bind<ConsumeParams, CounterRow>>();

export function consumeCounter(
  d: TextFlags & Pick<SqlDialect, "paramStyle">,
): Bind<ConsumeParams, CounterRow> {
  const sqlText = text(d);
  const key = `${d.paramStyle}\n${sqlText}`;
  let bind = STATEMENTS.get(key);
  if (bind === undefined) {
    bind = statement<ConsumeParams, CounterRow>(sqlText)[d.paramStyle];
    STATEMENTS.set(key, bind);
  }
  return bind;
}
