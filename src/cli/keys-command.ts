/**
 * `taskflow keys create|list|revoke|rotate`: API keys stored (hashed) in the
 * configured coordination (DATABASE_URL, WF_COORDINATION), the way to make a
 * production node's first key, so it needs no WF_API_KEYS itself.
 *
 * A new key is the only thing written to stdout by create and rotate (so
 * `KEY=$(taskflow keys create --name ci)` captures it); what the command says
 * about it goes to stderr and never contains it. Nothing here logs.
 */
import type { TaskflowConfig } from "../config/config.ts";
import { existsSync } from "node:fs";
import { DEFAULT_KEY_CACHE_MS } from "../config/defaults.ts";
import {
  withApiKeys,
  type ApiKeyInfo,
  type ApiKeyListing,
  type CliApiKeys,
} from "../composition/cli-database.ts";
import { isStoredKeyShape } from "../composition/cli-engine.ts";
import { keysStore, missingSqliteFile } from "./keys-store.ts";
import { parseExpiry } from "./parse-expiry.ts";
import type { CliIo } from "./cli-io.ts";

export type KeysCommand =
  | { action: "create"; name: string; tenant: string | null; expiresAt: Date | null }
  | { action: "list" }
  | { action: "revoke" | "rotate"; id: string };

export interface KeysArgs {
  /** The positionals after `keys`. */
  positionals: readonly string[];
  name?: string | undefined;
  tenant?: string | undefined;
  expires?: string | undefined;
}

export const KEYS_USAGE =
  "keys create --name <name> [--tenant <id>] [--expires <90d|date>] | keys list | keys revoke <id> | keys rotate <id>";

/** The command, or a usage message. */
export function parseKeysArgs(a: KeysArgs): KeysCommand | string {
  const [action, id, extra] = a.positionals;
  if (extra !== undefined) return `unexpected argument '${extra}'`;
  const createOnly = a.name !== undefined || a.tenant !== undefined || a.expires !== undefined;
  if (action !== "create" && createOnly) {
    return "--name, --tenant and --expires belong to 'keys create'";
  }
  switch (action) {
    case "create": {
      if (id !== undefined) return `unexpected argument '${id}'`;
      if (a.name === undefined || a.name.trim() === "") return "keys create needs --name <name>";
      const expiresAt = a.expires === undefined ? null : parseExpiry(a.expires);
      if (typeof expiresAt === "string") return expiresAt;
      return { action, name: a.name, tenant: a.tenant ?? null, expiresAt };
    }
    case "list":
      return id === undefined ? { action } : `unexpected argument '${id}'`;
    case "revoke":
    case "rotate":
      if (id === undefined) return `keys ${action} needs the key's id (see 'taskflow keys list')`;
      // Keeps the secret out of shell history and process lists.
      if (isStoredKeyShape(id)) return `keys ${action} takes the key's id, not the key itself`;
      return { action, id };
    default:
      return action === undefined
        ? `keys needs a command: ${KEYS_USAGE}`
        : `unknown keys command '${action}'`;
  }
}

/** Runs one keys command on the configured database; resolves with the exit code. */
export async function runKeysCommand(
  command: KeysCommand,
  config: TaskflowConfig,
  io: CliIo,
): Promise<number> {
  if (config.coordination === "memory") {
    io.err(
      "taskflow: WF_COORDINATION is memory: keys would live only as long as this command; " +
        "stored keys need WF_COORDINATION=sql or redis\n",
    );
    return 1;
  }
  // Named every time: keys made or listed in the wrong store (the default SQLite file of a
  // shell without the deployment's DATABASE_URL) would otherwise look like a missing key.
  const store = keysStore(config);
  io.err(`taskflow: API keys in ${store}\n`);
  // Only create makes the default SQLite file; reading a file that is not there finds nothing.
  if (command.action !== "create") {
    const missing = missingSqliteFile(config, existsSync);
    if (missing !== null) return nothingStored(command, missing, io);
  }
  // The keys' table comes with the migrations; a fresh database gets them there.
  return withApiKeys(config, (keys) => perform(command, keys, io, store));
}

async function perform(
  command: KeysCommand,
  keys: CliApiKeys,
  io: CliIo,
  store: string,
): Promise<number> {
  switch (command.action) {
    case "create": {
      const created = await keys.create(command);
      io.err(`taskflow: created API key ${describe(created)}\n${SHOWN_ONCE}`);
      io.out(`${created.key}\n`);
      return 0;
    }
    case "list":
      io.out(listing(await keys.list(), store));
      return 0;
    case "revoke": {
      if (!(await keys.revoke(command.id))) return noLiveKey(io, command.id);
      io.err(`taskflow: revoked API key ${command.id}; ${CACHE_DELAY}\n`);
      return 0;
    }
    case "rotate": {
      const next = await keys.rotate(command.id);
      if (next === null) return noLiveKey(io, command.id);
      io.err(
        `taskflow: API key ${command.id} revoked (${CACHE_DELAY}); ` +
          `its replacement is ${describe(next)}\n${SHOWN_ONCE}`,
      );
      io.out(`${next.key}\n`);
      return 0;
    }
  }
}

const SHOWN_ONCE =
  "taskflow: the key follows on stdout; it is shown this once (only its hash is stored)\n";
const CACHE_DELAY = `running nodes refuse it within ${DEFAULT_KEY_CACHE_MS / 1000} s (their cache)`;

/** list, revoke or rotate on a SQLite file that is not there: nothing to find, nothing created. */
function nothingStored(
  command: Exclude<KeysCommand, { action: "create" }>,
  path: string,
  io: CliIo,
): number {
  if (command.action !== "list") return noLiveKey(io, command.id, `${path} does not exist`);
  io.out(`no API keys are stored: ${path} does not exist (it was not created)\n`);
  return 0;
}

function noLiveKey(io: CliIo, id: string, why = "see 'taskflow keys list'"): number {
  io.err(`taskflow: no live API key has id '${id.slice(0, 80)}' (${why})\n`);
  return 1;
}

function describe(k: ApiKeyInfo): string {
  const tenant = k.tenant === null ? "any tenant" : `tenant ${k.tenant}`;
  const expires = k.expiresAt === null ? "never expires" : `expires ${k.expiresAt.toISOString()}`;
  return `${k.id} (name ${JSON.stringify(k.name)}, ${tenant}, ${expires})`;
}

/** Columns padded to their widest cell; `*` is "any tenant". */
function listing(items: readonly ApiKeyListing[], store: string): string {
  if (items.length === 0)
    return `no API keys are stored in ${store}; create one with 'taskflow keys create --name <name>'\n`;
  const rows = [
    ["ID", "NAME", "TENANT", "CREATED", "EXPIRES", "STATE"],
    ...items.map((k) => [
      k.id,
      k.name,
      k.tenant ?? "*",
      k.createdAt.toISOString(),
      k.expiresAt?.toISOString() ?? "never",
      k.state,
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return (
    rows
      .map((r) =>
        r
          .map((cell, c) => cell.padEnd(widths[c]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}
