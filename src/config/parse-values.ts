import { ID_PATTERN, MAX_ID_LENGTH } from "../domain/limits.ts";
import { InvalidValue } from "./config-error.ts";
import {
  LogLevels,
  SqliteSynchronousModes,
  type LogLevel,
  type SqliteSynchronous,
} from "./config.ts";
import { DEFAULT_DATABASE_URL } from "./defaults.ts";

const ID = new RegExp(ID_PATTERN);
/** API keys travel in a header: visible ASCII only, so nothing is trimmed or mangled in transit. */
const API_KEY = /^[\x21-\x7e]+$/;
const DATABASE_SCHEMES = ["sqlite:", "postgres:", "postgresql:", "mysql:", "mariadb:"];
const MAX_BODY_LIMIT = 1024 * 1024 * 1024;

/** A comma string ("a, b") or an array of strings; blanks dropped, duplicates removed. */
function parseList(value: unknown): string[] {
  const items =
    typeof value === "string"
      ? value.split(",")
      : Array.isArray(value) && value.every((v) => typeof v === "string")
        ? value
        : undefined;
  if (!items) throw new InvalidValue("must be a comma-separated string or an array of strings");
  return [...new Set(items.map((s) => s.trim()).filter((s) => s !== ""))];
}

function assertId(id: string, sub?: string): void {
  if (id.length > MAX_ID_LENGTH || !ID.test(id)) {
    throw new InvalidValue(
      `${JSON.stringify(id.slice(0, 40))} is not a valid id (letters, digits, . _ - @ :; at most ${MAX_ID_LENGTH})`,
      sub,
    );
  }
}

export function parseIds(value: unknown): string[] {
  const ids = parseList(value);
  ids.forEach((id) => assertId(id));
  return ids;
}

/** Group id → members. A group with no members still exists (tasks may be assigned to it). */
export function parseGroups(value: unknown): Record<string, string[]> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidValue("must be an object of group id → member list");
  }
  const groups: Record<string, string[]> = {};
  for (const [id, members] of Object.entries(value)) {
    assertId(id, id);
    try {
      groups[id] = parseIds(members);
    } catch (e) {
      throw e instanceof InvalidValue ? new InvalidValue(e.message, id) : e;
    }
  }
  return groups;
}

/** Keys are secrets: errors say which one (by position) is wrong, never its value. */
export function parseApiKeys(value: unknown): string[] {
  const keys = parseList(value);
  keys.forEach((k, i) => {
    if (!API_KEY.test(k)) {
      throw new InvalidValue(`key #${i + 1} must be visible ASCII without spaces or commas`);
    }
  });
  return keys;
}

/** Only the scheme is checked (and echoed): the rest of a URL may hold a password. */
export function parseDatabaseUrl(value: unknown): string {
  if (typeof value !== "string") throw new InvalidValue("must be a string");
  const url = value.trim();
  if (url === "") return DEFAULT_DATABASE_URL;
  if (!DATABASE_SCHEMES.some((s) => url.toLowerCase().startsWith(s))) {
    throw new InvalidValue(`must start with one of ${DATABASE_SCHEMES.join(" ")}`);
  }
  return url;
}

export function parseNodeEnv(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidValue("must be a non-empty string");
  }
  return value.trim();
}

export function parseBodyLimit(value: unknown): number {
  const n = typeof value === "string" && /^[0-9]+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_BODY_LIMIT) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of bytes between 1 and ${MAX_BODY_LIMIT}`,
    );
  }
  return n;
}

export function parseLogLevel(value: unknown): LogLevel {
  const v = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (!LogLevels.includes(v as LogLevel)) {
    throw new InvalidValue(`${JSON.stringify(value)} is not one of ${LogLevels.join(", ")}`);
  }
  return v as LogLevel;
}

/** A switch: a boolean, or "true"/"false"/"1"/"0" (any case) from the environment. */
export function parseBoolean(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  const v = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw new InvalidValue(`${JSON.stringify(value)} is not one of true, false, 1, 0`);
}

/** "normal" or "full" (any case). */
export function parseSqliteSynchronous(value: unknown): SqliteSynchronous {
  const v = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (!SqliteSynchronousModes.includes(v as SqliteSynchronous)) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not one of ${SqliteSynchronousModes.join(", ")}`,
    );
  }
  return v as SqliteSynchronous;
}

/** Whole milliseconds (a number or a string of digits) between `min` and `max`. */
export function parseWholeMs(value: unknown, min: number, max: number): number {
  const text = typeof value === "string" ? value.trim() : undefined;
  const n = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of milliseconds between ${min} and ${max}`,
    );
  }
  return n;
}
