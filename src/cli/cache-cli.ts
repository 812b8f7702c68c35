/**
 * `taskflow cache …`: the definition cache's consistency ledger in
 * DATABASE_URL, for an operator (docs/definition-cache.md, Orphaned fences).
 * Works on the database like `migrate` (migrations first, no HTTP, no API
 * key). Bad usage exits 2, a failure (an unknown mutation id, an unreachable
 * database) 1, each with one line on stderr.
 */
import { parseArgs } from "node:util";
import { isConfigError } from "../config/config-error.ts";
import { loadConfig } from "../config/load-config.ts";
import { isTaskflowError } from "../domain/errors.ts";
import {
  withCacheLedger,
  type CacheLedger,
  type IncompleteMutation,
} from "../composition/cli-database.ts";
import type { CliIo } from "./cli-io.ts";

export const CACHE_HELP = `Usage: taskflow cache <command> [--config <file>]

Commands:
  list-mutations          the incomplete cache mutations (fences), oldest first:
                          id, mutation id, scope, owner (host/pid/boot id), age.
                          One that stays belongs to a process that died while
                          writing; its scope's readers skip the cache meanwhile
  complete-mutation ID    complete that fence once its owner is gone: its scope's
                          cache revision rises and the cache is used again.
                          Completing one already completed changes nothing

Options:
  --config <file>   JSON config file (DATABASE_URL and the rest, as for serve)
`;

const MUTATION_ID = /^[A-Za-z0-9._:-]{1,64}$/;

type Env = Readonly<Record<string, string | undefined>>;

export async function runCacheCli(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { config: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
  } catch (e) {
    return usage(io, (e as Error).message);
  }
  const [command, ...args] = parsed.positionals;
  if (parsed.values.help || command === undefined || command === "help") {
    io.out(CACHE_HELP);
    return command === undefined && !parsed.values.help ? 2 : 0;
  }
  const configFile = parsed.values.config;
  if (command === "list-mutations") {
    if (args.length > 0) return usage(io, `unexpected argument '${args[0]}'`);
    return run(env, configFile, io, (ledger) => list(ledger, io));
  }
  if (command === "complete-mutation") {
    const [id, extra] = args;
    if (id === undefined)
      return usage(io, "complete-mutation needs the mutation id (see list-mutations)");
    if (extra !== undefined) return usage(io, `unexpected argument '${extra}'`);
    if (!MUTATION_ID.test(id)) return usage(io, `'${id.slice(0, 80)}' is not a mutation id`);
    return run(env, configFile, io, (ledger) => complete(ledger, id, io));
  }
  return usage(io, `unknown cache command '${command}'`);
}

async function run(
  env: Env,
  configFile: string | undefined,
  io: CliIo,
  fn: (ledger: CacheLedger) => Promise<number>,
): Promise<number> {
  try {
    const config = loadConfig({ env, configFile, requireApiKeys: false });
    // The ledger's table comes with the migrations; a fresh database gets them there.
    return await withCacheLedger(config, fn);
  } catch (e) {
    return fail(io, e);
  }
}

async function list(ledger: CacheLedger, io: CliIo): Promise<number> {
  const items = await ledger.listIncomplete();
  if (items.length === 0) {
    io.out("no incomplete cache mutation: every scope's cache is in use\n");
    return 0;
  }
  io.out(table(items));
  return 0;
}

async function complete(ledger: CacheLedger, id: string, io: CliIo): Promise<number> {
  const { completed } = await ledger.completeOrphan(id);
  io.out(
    completed
      ? `completed cache mutation ${id}; its scope's cache revision has moved on\n`
      : `cache mutation ${id} was already completed; nothing changed\n`,
  );
  return 0;
}

/** Columns padded to their widest cell. */
function table(items: readonly IncompleteMutation[]): string {
  const rows = [
    ["ID", "MUTATION", "SCOPE", "OWNER", "CREATED", "AGE"],
    ...items.map((m) => [
      String(m.id),
      m.mutationId,
      m.scope,
      m.owner,
      m.createdAt.toISOString(),
      age(m.ageMs),
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return rows.map(line).join("\n") + "\n";
}

function age(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h`;
}

function usage(io: CliIo, message: string): number {
  io.err(`taskflow: ${message}. Run 'taskflow cache --help' for usage.\n`);
  return 2;
}

function fail(io: CliIo, e: unknown): number {
  const message = e instanceof Error ? e.message : String(e);
  const known = isConfigError(e) || isTaskflowError(e);
  io.err(`taskflow: ${known ? message : `failed: ${message}`}\n`);
  return 1;
}
