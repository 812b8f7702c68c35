/**
 * The `taskflow` command line, as a function of its arguments and environment
 * so tests can call it without spawning. Failures are one line on stderr, no
 * stack trace: exit 1 for a bad configuration or a failed start, 2 for bad usage.
 */
import { parseArgs } from "node:util";
import { isConfigError } from "../config/config-error.ts";
import type { ListenAddress } from "../config/config.ts";
import { CONFIG_FILE_VARIABLE, ENVIRONMENT_VARIABLES } from "../config/env-layer.ts";
import { loadConfig } from "../config/load-config.ts";
import { checkHealth, healthUrl } from "./health-check.ts";
import type { KeysArgs } from "./keys-command.ts";
import { isTaskflowError } from "../domain/errors.ts";
import { logUnhandledRejections } from "./unhandled-rejections.ts";
import type { CliIo } from "./cli-io.ts";
import { commandHelp, helpHint } from "./command-help.ts";

export const HELP = `Usage: taskflow <command> [--config <file>] [--workflows <module>] [--no-worker] [--console]

Commands:
  serve      run the HTTP server on ADDR (default :8081; 127.0.0.1:8081 in
             development); migrations run first; with --workflows, also a
             worker that executes their runs (not with --no-worker). Starts
             of workflows that a worker elsewhere serves are accepted too
  console    serve with the Console at /console/ (the same as serve --console)
  worker     execute workflow runs without the API (needs --workflows); with
             WF_WORKER_HEALTH_ADDR, /healthz and /readyz there; no key needed
  migrate    apply pending database migrations, then exit
  keys create --name <name> [--tenant <id>] [--expires <90d|12h|date>]
             store a new API key (scoped to one tenant with --tenant) and
             print it on stdout, this once; only its hash is kept
  keys list  the stored keys: id, name, tenant, created, expires, state
  keys revoke <id>
             revoke a stored key (running nodes refuse it within 5 s)
  keys rotate <id>
             a new key with the old one's name, tenant and lifetime, printed
             once; the old key is revoked
  health     ask the node on ADDR whether it is alive (--ready: and can reach
             its database); exit 0 if so, 1 if not
  definitions
             validate, publish or diff process definitions (see
             'taskflow definitions --help')
  cache list-mutations
             the definition cache's incomplete mutations (fences): owner, age
  cache complete-mutation <id>
             complete a fence whose process died (see 'taskflow cache --help')
  help [command]
             show this help, or a command's own: 'taskflow help keys create'
             is 'taskflow keys create --help'

Options:
  --config <file>  JSON config file (default: $TASKFLOW_CONFIG, else none)
  --workflows <m>  a .ts, .js or .mjs module; every workflow(...) it exports is registered
  --no-worker      serve: an API-only node that executes no run; with --workflows
                   their names are accepted for starts, and workers run them
  --console        serve: also the Console's API under /console (docs/console.md)
  --ready          health: ask the readiness route (/readyz) instead of /healthz
  --name, --tenant, --expires
                   keys create: the key's name, its tenant, its expiry
  -h, --help       show this help; after a command, that command's own

Environment (docs/configuration.md):
${environmentHelp()}
  An unset NODE_ENV counts as production: serve then requires WF_API_KEYS or
  a stored key (taskflow keys create; the keys commands need neither).
`;

function environmentHelp(): string {
  const names = [...ENVIRONMENT_VARIABLES, "WF_GROUP_<id>", CONFIG_FILE_VARIABLE];
  const lines: string[] = [];
  let line = " ";
  for (const name of names) {
    if (line.length + name.length + 2 > 78) {
      lines.push(line.replace(/,$/, ","));
      line = " ";
    }
    line += ` ${name},`;
  }
  lines.push(line.replace(/,$/, ""));
  return lines.join("\n");
}

type Env = Readonly<Record<string, string | undefined>>;

/*
 * Each command loads its own modules when it runs (the `await import(...)`s
 * below): the server, the worker, the database layer and their dependencies
 * are ~1,700 module files, ~0.6 s of CPU at every start. `taskflow --help`,
 * `health` and the usage errors need none of them; `keys` and `migrate` need
 * the database but not the server.
 */

/** Resolves with the exit code; for `serve`, once the server listens (it keeps running). */
export async function runCli(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  // `taskflow help definitions …` is `taskflow definitions … --help`; the same for cache.
  if (argv[0] === "help" && (argv[1] === "definitions" || argv[1] === "cache"))
    return runCli([...argv.slice(1), "--help"], env, io);
  if (argv[0] === "definitions")
    return (await import("./definitions-cli.ts")).runDefinitionsCli(argv.slice(1), env, io);
  if (argv[0] === "cache")
    return (await import("./cache-cli.ts")).runCacheCli(argv.slice(1), env, io);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string" },
        workflows: { type: "string" },
        "no-worker": { type: "boolean" },
        console: { type: "boolean" },
        ready: { type: "boolean" },
        name: { type: "string" },
        tenant: { type: "string" },
        expires: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    });
  } catch (e) {
    // Before the arguments are parsed, the first one is the best guess at the command.
    return usage(io, (e as Error).message, argv.slice(0, 2));
  }
  const [command, ...extra] = parsed.positionals;
  if (parsed.values.help || command === "help")
    return help(io, command === "help" ? extra : parsed.positionals);
  if (command === undefined) return usage(io, "missing command");
  const configFile = parsed.values.config;
  if (command === "keys")
    return keys(env, configFile, io, { ...parsed.values, positionals: extra });
  if (extra.length > 0) return usage(io, `unexpected argument '${extra[0]}'`, [command]);
  const { name, tenant, expires } = parsed.values;
  if (name !== undefined || tenant !== undefined || expires !== undefined) {
    return usage(io, "--name, --tenant and --expires belong to 'keys create'", ["keys", "create"]);
  }
  const workflows = parsed.values.workflows;
  const noWorker = parsed.values["no-worker"] === true;
  const serving = command === "serve" || command === "console";
  if (noWorker && !serving) return usage(io, "--no-worker is an option of serve", ["serve"]);
  const withConsole = parsed.values.console === true || command === "console";
  if (withConsole && !serving) return usage(io, "--console is an option of serve", ["serve"]);
  try {
    if (serving) return await serve(env, configFile, io, workflows, { noWorker, withConsole });
    if (command === "worker") {
      if (workflows === undefined)
        return usage(io, "worker needs --workflows <module>", ["worker"]);
      return await worker(env, configFile, io, workflows);
    }
    if (command === "migrate") return await migrate(env, configFile, io);
    if (command === "health") return await health(env, configFile, io, parsed.values.ready);
  } catch (e) {
    return fail(io, e);
  }
  return usage(io, `unknown command '${command}'`);
}

async function serve(
  env: Env,
  configFile: string | undefined,
  io: CliIo,
  workflows: string | undefined,
  { noWorker, withConsole }: { noWorker: boolean; withConsole: boolean },
): Promise<number> {
  // Keys are required outside development, but stored keys count: createTaskflow
  // checks once the database is migrated (require-keys-at-start.ts).
  const config = loadConfig({ env, configFile, requireApiKeys: false });
  const [{ importWorkflowModule }, { createTaskflow }, { closeOnSignals, consoleCanLogIn }] =
    await Promise.all([
      import("./workflow-module.ts"),
      import("../composition/create-taskflow.ts"),
      import("../composition/serve-lifecycle.ts"),
    ]);
  const mod = workflows === undefined ? undefined : await importWorkflowModule(workflows);
  // Without a worker the names still count for starts: runs wait for a worker that has the code.
  const taskflow = await createTaskflow(config, {
    workflows: mod,
    ...(noWorker ? { worker: false } : {}),
    ...(withConsole ? { console: {} } : {}),
  });
  let address: string;
  try {
    address = await taskflow.listen();
  } catch (e) {
    await taskflow.close();
    throw inUse(e, config.addr) ?? e;
  }
  const log = taskflow.server.log;
  logUnhandledRejections(log);
  closeOnSignals(() => taskflow.close(), {
    info: (m) => log.info(m),
    error: (o, m) => log.error(o, m),
  });
  io.out(`taskflow: listening on ${address}\n`);
  // The CLI passes no CodeSender: mountConsole decides the same, and logged why when off.
  if (withConsole && consoleCanLogIn(config)) {
    io.out(`taskflow: Console API on ${address}/console/api\n`);
  } else if (withConsole) {
    io.out("taskflow: Console off: no login configured (see the warning above)\n");
  }
  const names = mod === undefined ? [] : await workflowNames(mod);
  if (noWorker) {
    const accepted = names.length > 0 ? `; accepting starts of ${names.join(", ")}` : "";
    io.out(`taskflow: no worker (--no-worker): runs execute on workers${accepted}\n`);
  } else if (names.length > 0) io.out(`taskflow: serving workflows ${names.join(", ")}\n`);
  return 0;
}

async function workflowNames(mod: Record<string, unknown>): Promise<string[]> {
  const { WorkflowRegistry } = await import("../composition/cli-workflows.ts");
  const registry = new WorkflowRegistry();
  registry.registerModule(mod);
  return registry.names();
}

/** The port is taken: say how to pick another. */
function inUse(e: unknown, addr: Readonly<ListenAddress>): Error | undefined {
  if ((e as { code?: unknown }).code !== "EADDRINUSE") return undefined;
  const host = addr.host.includes(":") ? `[${addr.host}]` : addr.host;
  const next = addr.port === 65535 ? 8082 : addr.port + 1;
  return new Error(
    `ADDR ${host}:${addr.port}: the address is in use (another process listens there); ` +
      `set ADDR to a free one, e.g. ADDR=${host}:${next}`,
    { cause: e },
  );
}

async function health(
  env: Env,
  configFile: string | undefined,
  io: CliIo,
  ready: boolean | undefined,
): Promise<number> {
  const config = loadConfig({ env, configFile, requireApiKeys: false });
  const answer = await checkHealth(healthUrl(config.addr, ready === true));
  if (answer.ok) io.out(`taskflow: ${answer.line}\n`);
  else io.err(`taskflow: ${answer.line}\n`);
  return answer.ok ? 0 : 1;
}

async function worker(
  env: Env,
  configFile: string | undefined,
  io: CliIo,
  workflows: string,
): Promise<number> {
  // A worker serves no API (at most /healthz and /readyz, which take no key on a
  // server either), so a key would guard nothing: none is required, even in production.
  const config = loadConfig({ env, configFile, requireApiKeys: false });
  const [{ importWorkflowModule }, { startWorker }, { closeOnSignals }] = await Promise.all([
    import("./workflow-module.ts"),
    import("../composition/create-durable.ts"),
    import("../composition/serve-lifecycle.ts"),
  ]);
  const mod = await importWorkflowModule(workflows);
  const w = await startWorker(
    config,
    mod,
    {
      // The worker retries with backoff (at most one line per 5 s); say why nothing progresses.
      onError: (what, e) => io.err(`taskflow: ${what} failed: ${e.message}; retrying\n`),
    },
    (job, e) => io.err(`taskflow: background job ${job} failed: ${e.message}\n`),
  );
  logUnhandledRejections({
    error: (o, m) => {
      const e = (o as { err?: unknown }).err;
      io.err(`taskflow: ${m}: ${e instanceof Error ? e.stack : String(e)}\n`);
    },
  });
  closeOnSignals(() => w.close(), {
    info: (m) => io.err(`taskflow: ${m}\n`),
    error: (_o, m) => io.err(`taskflow: ${m}\n`),
  });
  const names = w.durable.registry.names().join(", ");
  io.out(`taskflow: worker ${w.durable.worker!.owner} running workflows ${names}\n`);
  if (w.health !== undefined) io.out(`taskflow: worker health on ${w.health.address}\n`);
  return 0;
}

async function migrate(env: Env, configFile: string | undefined, io: CliIo): Promise<number> {
  // Migrating serves no HTTP, so it does not need API keys even in production.
  const { migrateDatabase } = await import("../composition/migrate-database.ts");
  const applied = await migrateDatabase(loadConfig({ env, configFile, requireApiKeys: false }));
  io.out(
    applied.length === 0
      ? "taskflow: no migration pending; the database is up to date\n"
      : `taskflow: applied ${applied.length} migration(s): ${applied.join(", ")}\n`,
  );
  return 0;
}

async function keys(
  env: Env,
  configFile: string | undefined,
  io: CliIo,
  args: KeysArgs,
): Promise<number> {
  const { parseKeysArgs, runKeysCommand } = await import("./keys-command.ts");
  const command = parseKeysArgs(args);
  if (typeof command === "string") return usage(io, command, ["keys", ...args.positionals]);
  try {
    // The keys commands serve no HTTP: they are how a production node gets its first key.
    const config = loadConfig({ env, configFile, requireApiKeys: false });
    return await runKeysCommand(command, config, io);
  } catch (e) {
    return fail(io, e);
  }
}

/** The global help, or the named command's own (command-help.ts). */
function help(io: CliIo, words: readonly string[]): number {
  if (words.length === 0) {
    io.out(HELP);
    return 0;
  }
  const text = commandHelp(words);
  if (text === undefined) return usage(io, `unknown command '${words[0]}'`);
  io.out(text);
  return 0;
}

/** `words`: the command the message is about, whose own help it points to. */
function usage(io: CliIo, message: string, words: readonly string[] = []): number {
  io.err(`taskflow: ${message}. Run '${helpHint(words)}' for usage.\n`);
  return 2;
}

/** Known failures (configuration, a bad DATABASE_URL) print as they are; others get a prefix. */
function fail(io: CliIo, e: unknown): number {
  const message = e instanceof Error ? e.message : String(e);
  const known = isConfigError(e) || isTaskflowError(e);
  io.err(`taskflow: ${known ? message : `cannot start: ${message}`}\n`);
  return 1;
}
