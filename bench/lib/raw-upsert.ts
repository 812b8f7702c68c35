/**
 * Each coordination backend's own rate for the operation its primitives are
 * built on: a single-row upsert on the SQL databases (what a counter consume
 * or a cache set is, underneath) and `SET` on Redis. Measured in the same run
 * as the primitives, so each figure is also a ratio.
 */
import Database from "better-sqlite3";
import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import pg from "pg";
import { fileURLToPath } from "node:url";
import { runConcurrent } from "./run-concurrent.ts";
import { round } from "./stats.ts";

const TABLE = "bench_raw_upsert";
const KEYS = 1000;

export type RawBackend = "sqlite" | "postgres" | "mysql" | "redis";

export async function rawUpsertRate(
  backend: RawBackend,
  url: string,
  concurrency: number,
  seconds: number,
): Promise<number> {
  switch (backend) {
    case "postgres":
      return pgRate(url, concurrency, seconds);
    case "mysql":
      return mysqlRate(url, concurrency, seconds);
    case "sqlite":
      return sqliteRate(url, seconds);
    case "redis":
      return redisRate(url, concurrency, seconds);
  }
}

const perSecond = (r: { latencies: number[]; seconds: number }) =>
  round(r.latencies.length / r.seconds, 0);

async function pgRate(url: string, concurrency: number, seconds: number) {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (k text PRIMARY KEY, v text NOT NULL)`);
    const sql = `INSERT INTO ${TABLE} (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`;
    return perSecond(
      await runConcurrent(concurrency, 1e9, seconds, async (i) => {
        await pool.query(sql, [`k${i % KEYS}`, `v${i}`]);
      }),
    );
  } finally {
    await pool.end();
  }
}

async function mysqlRate(url: string, concurrency: number, seconds: number) {
  const pool = mysql.createPool({ uri: url, connectionLimit: concurrency });
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (k varchar(64) PRIMARY KEY, v varchar(64) NOT NULL)`,
    );
    const sql = `INSERT INTO ${TABLE} (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)`;
    return perSecond(
      await runConcurrent(concurrency, 1e9, seconds, async (i) => {
        await pool.execute(sql, [`k${i % KEYS}`, `v${i}`]);
      }),
    );
  } finally {
    await pool.end();
  }
}

/** One connection, WAL + NORMAL as the store; SQLite writes one at a time whatever the concurrency. */
function sqliteRate(url: string, seconds: number) {
  const path = url.replace(/^sqlite:/, "");
  const db = new Database(path.startsWith("file:") ? fileURLToPath(path) : path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (k text PRIMARY KEY, v text NOT NULL)`);
    const upsert = db.prepare(
      `INSERT INTO ${TABLE} (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`,
    );
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < seconds * 1000) upsert.run(`k${n % KEYS}`, `v${n++}`);
    return round(n / ((performance.now() - start) / 1000), 0);
  } finally {
    db.close();
  }
}

async function redisRate(url: string, concurrency: number, seconds: number) {
  const redis = new Redis(url);
  try {
    const prefix = `bench-raw:${process.pid}:`;
    const rate = perSecond(
      await runConcurrent(concurrency, 1e9, seconds, async (i) => {
        await redis.set(`${prefix}k${i % KEYS}`, `v${i}`);
      }),
    );
    const keys = Array.from({ length: KEYS }, (_, i) => `${prefix}k${i}`);
    await redis.del(...keys);
    return rate;
  } finally {
    redis.disconnect();
  }
}
