/**
 * DATABASE_URL parsing: which backend, and a printable form without the password.
 */
import { taskflowError } from "../../domain/errors.ts";
import type { StoreDialectName } from "./dialects/store-dialect.ts";

/** An empty DATABASE_URL means the embedded default. */
export const DEFAULT_SQLITE_PATH = "./taskflow.db";

export function backendOf(databaseUrl: string): StoreDialectName {
  const url = databaseUrl.trim();
  if (url === "" || url.startsWith("sqlite:")) return "sqlite";
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (/^(mysql|mariadb):\/\//i.test(url)) return "mysql";
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1] ?? "(none)";
  throw taskflowError("InvalidDatabaseUrl", {
    detail:
      `DATABASE_URL: unsupported scheme '${scheme}' (use sqlite:<path>, sqlite::memory:, ` +
      `postgres://…, postgresql://…, mysql://… or mariadb://…)`,
  });
}

/**
 * `sqlite:./a.db` → `./a.db`, `sqlite:/abs/a.db` → `/abs/a.db`, `sqlite::memory:` →
 * `:memory:`. The `sqlite://` form is accepted too (`sqlite:///abs`, `sqlite://./rel`).
 */
export function sqlitePathOf(databaseUrl: string): string {
  const url = databaseUrl.trim();
  if (url === "") return DEFAULT_SQLITE_PATH;
  let path = url.slice("sqlite:".length);
  if (path.startsWith("//")) path = path.slice(2);
  if (path === "") {
    throw taskflowError("InvalidDatabaseUrl", {
      detail: "DATABASE_URL: 'sqlite:' needs a path, e.g. sqlite:./taskflow.db",
    });
  }
  return path;
}

/** The URL with its password masked: safe for logs and error messages. */
export function redactUrl(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    // Not parseable as a URL (e.g. sqlite:./x.db): there is no password to hide,
    // but a malformed server URL could still carry one, so drop user info blindly.
    return databaseUrl.replace(/\/\/[^@/]*@/, "//***@");
  }
}
