/**
 * Counts the SQL statements an engine issues (= PostgreSQL round trips: pg does
 * not pipeline), by wrapping pg.Client.prototype.query — which every pool
 * client of TaskFlow and of DBOS goes through — and better-sqlite3's Statement
 * methods. pg_stat_statements is not preloaded on the bench server, so this is
 * the client-side count. Counting is off (one boolean test) except inside
 * `count()`; the wrappers must be installed before any pool connects, since
 * TaskFlow's prepared-statement layer binds client.query at connect time.
 */
import Database from "better-sqlite3";
import pg from "pg";

let on = false;
/** Every statement since install, counting or not (one increment): per-phase statement rates. */
let issued = 0;

/** Statements issued by this process so far (pg and better-sqlite3). */
export function statementsIssued(): number {
  return issued;
}
const byVerb = new Map<string, number>();
/** Per statement text: executions and milliseconds (PG: call → result, i.e. a round trip; SQLite: the synchronous call). */
const byText = new Map<string, { n: number; ms: number }>();

const textOf = (q: unknown): string =>
  typeof q === "string"
    ? q
    : typeof (q as { text?: unknown })?.text === "string"
      ? (q as { text: string }).text
      : "";

function timed(text: string, ms: number): void {
  const k = text.replace(/\s+/g, " ").trim().slice(0, 160);
  const e = byText.get(k) ?? { n: 0, ms: 0 };
  e.n++;
  e.ms += ms;
  byText.set(k, e);
}

function verbOf(text: unknown): string {
  const s = textOf(text);
  const m = /^\s*([a-z_]+)/i.exec(s);
  const verb = (m?.[1] ?? "?").toLowerCase();
  // pg_notify is a SELECT but worth seeing on its own.
  return verb === "select" && /pg_notify/i.test(s) ? "select pg_notify" : verb;
}

function bump(text: unknown): void {
  const v = verbOf(text);
  byVerb.set(v, (byVerb.get(v) ?? 0) + 1);
}

let installed = false;

export function installStatementCounter(): void {
  if (installed) return;
  installed = true;
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    issued++;
    if (!on) return query.apply(this, args);
    bump(args[0]);
    const t0 = performance.now();
    const r = query.apply(this, args);
    if (r instanceof Promise) {
      void r.then(
        () => timed(textOf(args[0]), performance.now() - t0),
        () => undefined,
      );
    }
    return r;
  };
  const probe = new Database(":memory:");
  const stmtProto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  probe.close();
  for (const m of ["run", "get", "all", "iterate"]) {
    const orig = stmtProto[m]!;
    stmtProto[m] = function (this: { source: string }, ...args: unknown[]) {
      issued++;
      if (!on) return orig.apply(this, args);
      bump(this.source);
      const t0 = performance.now();
      try {
        return orig.apply(this, args);
      } finally {
        timed(this.source, performance.now() - t0);
      }
    };
  }
}

export interface StatementCount {
  workflows: number;
  perWorkflow: number;
  /** Statements per workflow by leading keyword (begin, insert, update, select, commit, …). */
  byVerb: Record<string, number>;
  /** The statements that took the most time in total, per workflow. */
  top: { sql: string; perWorkflow: number; msPerWorkflow: number }[];
}

/** Runs `n` workflows one after another with counting on. */
export async function countStatements(
  n: number,
  runOne: (i: number) => Promise<void>,
  offset: number,
): Promise<StatementCount> {
  byVerb.clear();
  byText.clear();
  on = true;
  try {
    for (let i = 0; i < n; i++) await runOne(offset + i);
  } finally {
    on = false;
  }
  const per: Record<string, number> = {};
  let total = 0;
  for (const [k, v] of [...byVerb].sort((a, b) => b[1] - a[1])) {
    per[k] = Math.round((v / n) * 100) / 100;
    total += v;
  }
  const r2 = (x: number) => Math.round(x * 1000) / 1000;
  const top = [...byText]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 12)
    .map(([sql, e]) => ({ sql, perWorkflow: r2(e.n / n), msPerWorkflow: r2(e.ms / n) }));
  return { workflows: n, perWorkflow: r2(total / n), byVerb: per, top };
}
