/**
 * The database's own ceiling for the cheapest durable write: one single-row
 * INSERT per transaction (autocommit), from `concurrency` connections. Every
 * engine figure is quoted against this, measured in the same run, because
 * absolute numbers on a shared 2-core machine drift from run to run.
 */
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { fileURLToPath } from "node:url";
import { runConcurrent } from "./run-concurrent.ts";
import { round } from "./stats.ts";

const TABLE = "bench_raw_ceiling";

export async function rawInsertCeiling(
  url: string,
  concurrency: number,
  seconds: number,
): Promise<number> {
  if (url.startsWith("postgres")) return pgCeiling(url, concurrency, seconds);
  if (url.startsWith("mysql") || url.startsWith("mariadb"))
    return mysqlCeiling(url.replace(/^mariadb:/, "mysql:"), concurrency, seconds);
  return sqliteCeiling(url, seconds);
}

async function pgCeiling(url: string, concurrency: number, seconds: number) {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (id bigserial PRIMARY KEY, v text NOT NULL)`,
    );
    const r = await runConcurrent(concurrency, 1e9, seconds, async (i) => {
      await pool.query(`INSERT INTO ${TABLE} (v) VALUES ($1)`, [`v${i}`]);
    });
    return round(r.latencies.length / r.seconds, 0);
  } finally {
    await pool.end();
  }
}

async function mysqlCeiling(url: string, concurrency: number, seconds: number) {
  const pool = mysql.createPool({ uri: url, connectionLimit: concurrency });
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (id bigint AUTO_INCREMENT PRIMARY KEY, v varchar(64) NOT NULL)`,
    );
    const r = await runConcurrent(concurrency, 1e9, seconds, async (i) => {
      await pool.execute(`INSERT INTO ${TABLE} (v) VALUES (?)`, [`v${i}`]);
    });
    return round(r.latencies.length / r.seconds, 0);
  } finally {
    await pool.end();
  }
}

/** Same pragmas as the store (WAL, synchronous=NORMAL); one connection, as SQLite writes are serial anyway. */
function sqliteCeiling(url: string, seconds: number) {
  const path = url.replace(/^sqlite:/, "");
  const db = new Database(path.startsWith("file:") ? fileURLToPath(path) : path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (id integer PRIMARY KEY, v text NOT NULL)`);
    const insert = db.prepare(`INSERT INTO ${TABLE} (v) VALUES (?)`);
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < seconds * 1000) insert.run(`v${n++}`);
    return round(n / ((performance.now() - start) / 1000), 0);
  } finally {
    db.close();
  }
}
