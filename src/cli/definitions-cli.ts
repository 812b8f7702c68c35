/**
 * `taskflow definitions …`: validate a definition file, publish one straight
 * into DATABASE_URL (as `migrate` works on it), diff two files or two stored
 * versions. Findings print one per line as `FILE:POINTER: reason`, so an
 * editor or CI log points at the place; an invalid definition exits 1, bad
 * usage 2.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { isConfigError } from "../config/config-error.ts";
import { loadConfig } from "../config/load-config.ts";
import { openDatabase } from "../adapters/store/open-database.ts";
import { coordinationFor } from "../coordination-for.ts";
import { definitionCacheFor } from "../definition-cache-for.ts";
import { InvalidDocumentError, invalidDocument, isTaskflowError } from "../domain/errors.ts";
import { diffJson, type DiffEntry } from "../engine/definitions/definition-diff.ts";
import { formatOf, parseDefinitionText } from "../engine/definitions/definition-text.ts";
import {
  DefinitionVersions,
  type VersionSelector,
} from "../engine/definitions/definition-versions.ts";
import { validateDefinition } from "../engine/definitions/validate-definition.ts";
import { ServedCodeNames } from "../engine/durable/served-code-names.ts";
import type { CliIo } from "./cli-io.ts";

export const DEFINITIONS_HELP = `Usage: taskflow definitions <command> [options]

Commands:
  validate FILE           check a definition (.json, .yaml or .yml); every
                          finding as FILE:POINTER: reason; exit 1 if invalid
  publish FILE            publish it as the key's next version in DATABASE_URL
  diff FILE_A FILE_B      what changed between two definition files
  diff KEY FROM TO        ... between two stored versions (number, latest, draft)

Options:
  --config <file>   JSON config file (DATABASE_URL and the rest, as for serve)
  --tenant <id>     tenant to publish in or read from (default: default)
  --actor <id>      who publishes (default: $USER, else cli)
  --allow-unknown-steps
                    publish though a call step or sub-process workflow is
                    served by no worker yet (ahead of the deploy of its code)
`;

type Env = Readonly<Record<string, string | undefined>>;

export async function runDefinitionsCli(
  argv: readonly string[],
  env: Env,
  io: CliIo,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        tenant: { type: "string" },
        actor: { type: "string" },
        "allow-unknown-steps": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    });
  } catch (e) {
    return usage(io, (e as Error).message);
  }
  const [command, ...args] = parsed.positionals;
  if (parsed.values.help || command === undefined || command === "help") {
    io.out(DEFINITIONS_HELP);
    return command === undefined && !parsed.values.help ? 2 : 0;
  }
  const db = {
    env,
    configFile: parsed.values.config,
    tenantId: parsed.values.tenant ?? "default",
    actorId: parsed.values.actor ?? env["USER"] ?? "cli",
    allowUnknownSteps: parsed.values["allow-unknown-steps"] === true,
  };
  try {
    if (command === "validate" && args.length === 1) return await validate(args[0]!, io);
    if (command === "publish" && args.length === 1) return await publish(args[0]!, db, io);
    if (command === "diff" && args.length === 2) return await diffFiles(args[0]!, args[1]!, io);
    if (command === "diff" && args.length === 3) return await diffStored(args, db, io);
  } catch (e) {
    return fail(io, e, command === "publish" ? args[0] : undefined);
  }
  return usage(io, `bad usage of 'definitions ${command}'`);
}

interface DbOptions {
  env: Env;
  configFile: string | undefined;
  tenantId: string;
  actorId: string;
  allowUnknownSteps: boolean;
}

/** Findings about one file, to print as FILE:POINTER. */
class FileFindings extends InvalidDocumentError {
  constructor(
    readonly file: string,
    e: InvalidDocumentError,
  ) {
    super(e.message, e.errors);
  }
}

async function readDefinition(file: string): Promise<unknown> {
  try {
    return parseDefinitionText(await readFile(file, "utf8"), formatOf(file));
  } catch (e) {
    throw e instanceof InvalidDocumentError ? new FileFindings(file, e) : e;
  }
}

async function validate(file: string, io: CliIo): Promise<number> {
  const result = validateDefinition(await readDefinition(file));
  if (!result.valid) throw new FileFindings(file, invalidDocument("invalid", result.errors));
  const skipped =
    result.notChecked.length === 0 ? "" : ` (not checked: ${result.notChecked.join(", ")})`;
  io.out(`${file}: valid${skipped}\n`);
  return 0;
}

async function withVersions<T>(
  o: DbOptions,
  io: CliIo,
  fn: (v: DefinitionVersions) => Promise<T>,
): Promise<T> {
  // Works on the database like `migrate`: no HTTP, so no API keys needed.
  const config = loadConfig({ env: o.env, configFile: o.configFile, requireApiKeys: false });
  const database = openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
  });
  // A publish takes a node's path: the definition's lock, a fence before the write and its
  // completion after. Straight to the store, running nodes kept serving the versions they
  // had cached (up to WF_DEFINITION_CACHE_ABSOLUTE, an hour by default).
  const coordination = coordinationFor(config, database);
  const cache = definitionCacheFor(config, database, coordination, {
    log: { warn: (_fields, message) => io.err(`${message}\n`) },
  });
  try {
    await database.migrate();
    // What workers recorded serving (the CLI itself registers no steps or workflows).
    const code = new ServedCodeNames(database.runs, () => []);
    return await fn(new DefinitionVersions(cache.store, undefined, code));
  } finally {
    await cache.manager.close().catch(() => undefined);
    await coordination.close().catch(() => undefined);
    await database.close();
  }
}

async function publish(file: string, o: DbOptions, io: CliIo): Promise<number> {
  const doc = await readDefinition(file);
  const key = (doc as { key?: unknown } | null)?.key;
  if (typeof key !== "string") {
    throw new InvalidDocumentError("invalid", [{ pointer: "/key", reason: "is required" }]);
  }
  const ctx = { tenantId: o.tenantId, actorId: o.actorId };
  const published = await withVersions(o, io, (v) =>
    v.publish(ctx, key, doc, { allowUnknownSteps: o.allowUnknownSteps }),
  );
  io.out(`published ${published.key} version ${published.version}\n`);
  return 0;
}

async function diffFiles(a: string, b: string, io: CliIo): Promise<number> {
  printDiff(diffJson(await readDefinition(a), await readDefinition(b)), io);
  return 0;
}

async function diffStored(args: string[], o: DbOptions, io: CliIo): Promise<number> {
  const [key, from, to] = args as [string, string, string];
  const sel = (s: string): VersionSelector => (s === "latest" || s === "draft" ? s : Number(s));
  if (![from, to].every((s) => /^(\d{1,9}|latest|draft)$/.test(s))) {
    return usage(io, "versions are numbers, latest or draft");
  }
  const d = await withVersions(o, io, (v) =>
    v.diff({ tenantId: o.tenantId }, key, sel(from), sel(to)),
  );
  printDiff(d.changes, io);
  return 0;
}

function printDiff(changes: DiffEntry[], io: CliIo): void {
  if (changes.length === 0) io.out("no changes\n");
  for (const c of changes) {
    const show = (v: unknown) => JSON.stringify(v);
    if (c.op === "add") io.out(`+ ${c.pointer}: ${show(c.to)}\n`);
    else if (c.op === "remove") io.out(`- ${c.pointer}: ${show(c.from)}\n`);
    else io.out(`~ ${c.pointer}: ${show(c.from)} → ${show(c.to)}\n`);
  }
}

function usage(io: CliIo, message: string): number {
  io.err(`taskflow: ${message}. Run 'taskflow definitions --help' for usage.\n`);
  return 2;
}

/** Findings one per line at FILE:POINTER; other known failures as one line. */
function fail(io: CliIo, e: unknown, file: string | undefined): number {
  if (e instanceof InvalidDocumentError) {
    const where = e instanceof FileFindings ? e.file : (file ?? "");
    for (const x of e.errors)
      io.err(`${where}:${x.pointer === "" ? "/" : x.pointer}: ${x.reason}\n`);
    return 1;
  }
  const message = e instanceof Error ? e.message : String(e);
  const known =
    isConfigError(e) || isTaskflowError(e) || (e as { code?: unknown }).code === "ENOENT";
  io.err(`taskflow: ${known ? message : `failed: ${message}`}\n`);
  return 1;
}
