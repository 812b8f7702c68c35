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
import { InvalidDocumentError, isTaskflowError, documentError } from "../domain/errors.ts";
import {
  withDefinitionVersions,
  type CliDefinitionVersions,
  type VersionSelector,
} from "../composition/cli-database.ts";
import {
  definitionDiff,
  formatOf,
  parseDefinitionText,
  validateDefinition,
  type DiffEntry,
} from "../composition/cli-engine.ts";
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

Each command's own: 'taskflow definitions <command> --help'.
`;

const DB_OPTIONS = `  --config <file>   JSON config file (DATABASE_URL and the rest, as for serve)
  --tenant <id>     tenant to publish in or read from (default: default)`;

/** Each command's own help: `taskflow definitions validate --help`. */
const COMMAND_HELP: ReadonlyMap<string, string> = new Map([
  [
    "validate",
    `Usage: taskflow definitions validate FILE

Check one definition file (.json, .yaml or .yml) without a database: every
finding on a line of its own as FILE:POINTER: reason. Exit 0 if valid, 1 if not
(or the file cannot be read), 2 for bad usage.
`,
  ],
  [
    "publish",
    `Usage: taskflow definitions publish FILE [--tenant <id>] [--actor <id>] [--config <file>]

Validate FILE and publish it as its key's next version straight into
DATABASE_URL (migrations first, no server, no API key); prints the version it
got.

Options:
${DB_OPTIONS}
  --actor <id>      who publishes (default: $USER, else cli)
`,
  ],
  [
    "diff",
    `Usage: taskflow definitions diff FILE_A FILE_B
       taskflow definitions diff KEY FROM TO [--tenant <id>] [--config <file>]

What changed between two definition files, or between two stored versions of
KEY in DATABASE_URL (FROM and TO: a version number, latest or draft), one
change per line: + added, - removed, ~ changed, each at its JSON pointer.

Options (stored versions):
${DB_OPTIONS}

`,
  ],
]);

/** What is wrong with the arguments of a known command; undefined when they fit. */
function misuse(command: string, args: readonly string[]): string | undefined {
  const extra = (n: number) => `unexpected argument '${args[n]}'`;
  switch (command) {
    case "validate":
    case "publish":
      if (args.length === 0)
        return `definitions ${command} needs FILE, the definition (.json, .yaml or .yml)`;
      return args.length > 1 ? extra(1) : undefined;
    case "diff":
      if (args.length === 0)
        return "definitions diff needs two files (FILE_A FILE_B) or a key and two versions (KEY FROM TO)";
      if (args.length === 1)
        return `definitions diff needs a second file, or two versions (FROM TO) of key '${args[0]}'`;
      return args.length > 3 ? extra(3) : undefined;
  }
  return `unknown definitions command '${command}'`;
}

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
    return usage(io, (e as Error).message, argv[0]);
  }
  const [command, ...args] = parsed.positionals;
  // `definitions help validate` is `definitions validate --help`.
  const helpOf = command === "help" ? args[0] : command;
  if (parsed.values.help || command === "help") {
    if (helpOf === undefined) {
      io.out(DEFINITIONS_HELP);
      return 0;
    }
    const text = COMMAND_HELP.get(helpOf);
    if (text === undefined) return usage(io, `unknown definitions command '${helpOf}'`);
    io.out(text);
    return 0;
  }
  if (command === undefined) {
    io.out(DEFINITIONS_HELP);
    return 2;
  }
  const wrong = misuse(command, args);
  if (wrong !== undefined) return usage(io, wrong, command);
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
  return usage(io, `unknown definitions command '${command}'`);
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
    super(e.message, e.errors, e.reason, e.params);
  }
}

async function readDefinition(file: string): Promise<unknown> {
  try {
    return parseDefinitionText(await readFile(file, "utf8"), formatOf(file));
  } catch (e) {
    throw e instanceof InvalidDocumentError ? new FileFindings(file, e as InvalidDocumentError) : e;
  }
}

async function validate(file: string, io: CliIo): Promise<number> {
  const result = validateDefinition(await readDefinition(file));
  if (!result.valid)
    throw new FileFindings(
      file,
      documentError("InvalidDefinition", { detail: "invalid" }, result.errors),
    );
  const skipped =
    result.notChecked.length === 0 ? "" : ` (not checked: ${result.notChecked.join(", ")})`;
  io.out(`${file}: valid${skipped}\n`);
  return 0;
}

async function withVersions<T>(
  o: DbOptions,
  io: CliIo,
  fn: (v: CliDefinitionVersions) => Promise<T>,
): Promise<T> {
  // Works on the database like `migrate`: no HTTP, so no API keys needed.
  const config = loadConfig({ env: o.env, configFile: o.configFile, requireApiKeys: false });
  // A publish takes a node's path (lock, fence, completion): see withDefinitionVersions.
  return withDefinitionVersions(config, (message) => io.err(`${message}\n`), fn);
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
  io.out(
    published.unchanged === true
      ? `unchanged: ${published.key} version ${published.version} is this definition already\n`
      : `published ${published.key} version ${published.version}\n`,
  );
  return 0;
}

async function diffFiles(a: string, b: string, io: CliIo): Promise<number> {
  printDiff(definitionDiff(await readDefinition(a), await readDefinition(b)), io);
  return 0;
}

async function diffStored(args: string[], o: DbOptions, io: CliIo): Promise<number> {
  const [key, from, to] = args as [string, string, string];
  const sel = (s: string): VersionSelector => (s === "latest" || s === "draft" ? s : Number(s));
  if (![from, to].every((s) => /^(\d{1,9}|latest|draft)$/.test(s))) {
    return usage(io, "versions are numbers, latest or draft", "diff");
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

/** `command`: the one the message is about, whose own help it points to. */
function usage(io: CliIo, message: string, command?: string): number {
  const words = command !== undefined && COMMAND_HELP.has(command) ? ` ${command}` : "";
  io.err(`taskflow: ${message}. Run 'taskflow definitions${words} --help' for usage.\n`);
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
