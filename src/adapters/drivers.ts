/**
 * The database and Redis drivers, each loaded the first time something opens a
 * connection of its kind, not when a module that names it is imported: a node on
 * PostgreSQL never loads mysql2, better-sqlite3 or ioredis, one on SQLite never loads
 * pg. Loading them all took ~110 ms of CPU of a ~1.9 s `taskflow serve` start on
 * PostgreSQL (a CPU profile, 2026-12-06), paid by every node, worker and CLI command.
 * The drivers are CommonJS, so a synchronous require keeps every open synchronous.
 * Types come from the packages as before (`import type`).
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const pgDriver = (): typeof import("pg").default =>
  load("pg") as typeof import("pg").default;

export const mysqlDriver = (): typeof import("mysql2") => load("mysql2") as typeof import("mysql2");

export const mysqlPromiseDriver = (): typeof import("mysql2/promise") =>
  load("mysql2/promise") as typeof import("mysql2/promise");

export const sqliteDriver = (): typeof import("better-sqlite3") =>
  load("better-sqlite3") as typeof import("better-sqlite3");

export const redisDriver = (): typeof import("ioredis") =>
  load("ioredis") as typeof import("ioredis");
