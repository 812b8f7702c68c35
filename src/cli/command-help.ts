/**
 * Each `taskflow` command's own help: `taskflow serve --help`, `taskflow help
 * keys create`. The global help (run-cli.ts) is the index; these say what one
 * command does, what it needs and which options it takes, so a reader does not
 * have to pick their lines out of every other command's.
 */

const CONFIG_OPTION = "  --config <file>  JSON config file (default: $TASKFLOW_CONFIG, else none)";
const HELP_OPTION = "  -h, --help       show this help";
const SEE_ALL = "Every environment variable: 'taskflow --help'; docs/configuration.md.";

const SERVE_OPTIONS = `Options:
  --workflows <m>  a .ts, .js or .mjs module; every workflow(...) it exports is
                   registered
  --no-worker      an API-only node that executes no run; with --workflows their
                   names are accepted for starts, and workers elsewhere run them`;

const SERVE_RUNS = `Pending migrations of DATABASE_URL run first (unset: the SQLite file
./taskflow.db in the working directory). With --workflows, also a worker that
executes their runs. SIGTERM or SIGINT stops it once the requests in hand are
answered.`;

const NEEDS_KEYS = `Needs, outside development (an unset NODE_ENV counts as production):
WF_API_KEYS or a live stored key ('taskflow keys create --help').`;

const KEYS_STORE = `Keys are stored hashed where WF_COORDINATION says: sql, the default (the
database of DATABASE_URL; unset: the SQLite file ./taskflow.db), or redis
(REDIS_URL). Every keys command names the store it uses on stderr. No API key
is needed to run one. docs/api-keys.md`;

const COMMAND_HELP: ReadonlyMap<string, string> = new Map(
  Object.entries({
    serve: `Usage: taskflow serve [--workflows <module>] [--no-worker] [--console] [--config <file>]

Run the HTTP server on ADDR (default :8081; 127.0.0.1:8081 in development).
${SERVE_RUNS}

${SERVE_OPTIONS}
  --console        also the Console at /console/ (docs/console.md)
${CONFIG_OPTION}
${HELP_OPTION}

${NEEDS_KEYS}
${SEE_ALL}
`,
    console: `Usage: taskflow console [--workflows <module>] [--no-worker] [--config <file>]

Run the HTTP server on ADDR (default :8081; 127.0.0.1:8081 in development)
with the Console at /console/: the same as 'taskflow serve --console'.
${SERVE_RUNS}

${SERVE_OPTIONS}
${CONFIG_OPTION}
${HELP_OPTION}

${NEEDS_KEYS}
The Console's own settings (WF_CONSOLE_*): docs/console.md.
${SEE_ALL}
`,
    worker: `Usage: taskflow worker --workflows <module> [--config <file>]

Execute workflow runs without the API: the runs of the workflows the module
exports, from DATABASE_URL — the database the serving nodes use (unset: the
SQLite file ./taskflow.db). A run that fails is logged (one warn line). SIGTERM
or SIGINT stops it.

With WF_WORKER_HEALTH_ADDR (host:port; unset: none), it serves GET /healthz
(alive) and GET /readyz (the store answers and the worker polls; 503 naming what
is not) there, and nothing else. Needs no API key, even in production: it serves
no API, and the health routes take no key (as on a server).

Options:
  --workflows <m>  required: a .ts, .js or .mjs module; every workflow(...) it
                   exports is registered
${CONFIG_OPTION}
${HELP_OPTION}

${SEE_ALL}
`,
    migrate: `Usage: taskflow migrate [--config <file>]

Apply the pending migrations to DATABASE_URL (unset: the SQLite file
./taskflow.db), then exit, saying which it applied or that none was pending.
serve does it too at start; migrate does it ahead of a deploy. Needs no API key.

Options:
${CONFIG_OPTION}
${HELP_OPTION}

${SEE_ALL}
`,
    health: `Usage: taskflow health [--ready] [--config <file>]

Ask the node on ADDR whether it is alive (GET /healthz); an ADDR on every
interface is asked on loopback. Exit 0 if so, 1 if not (no answer within 5 s,
or not 200), with one line saying which. For container health checks.

Options:
  --ready          ask /readyz instead: alive and able to reach its database
${CONFIG_OPTION}
${HELP_OPTION}
`,
    keys: `Usage: taskflow keys <command> [options]

Create, list, revoke and rotate the API keys stored in the deployment, while its
nodes keep running (they take a change within 5 s).

Commands:
  create --name <name> [--tenant <id>] [--expires <90d|12h|date>]
                   store a new key and print it on stdout, this once
  list             the stored keys: id, name, tenant, created, expires, state
  revoke <id>      revoke a stored key
  rotate <id>      a new key with the old one's name, tenant and lifetime; the
                   old one is revoked

${KEYS_STORE}
Each command's own help: 'taskflow keys <command> --help'.
`,
    "keys create": `Usage: taskflow keys create --name <name> [--tenant <id>] [--expires <90d|12h|date>]

Store a new API key and print it on stdout, this once: KEY=$(taskflow keys
create --name ci) captures exactly the key, and what is said about it (its id,
scope, expiry) goes to stderr. Only its hash is kept.

Options:
  --name <name>    required: for people reading 'keys list'; 1-128 printable
                   characters
  --tenant <id>    the one tenant the key may act for; without it, any tenant
  --expires <when> a lifetime (90d, 12h) or an ISO date or date-time; without it
                   the key never expires
${CONFIG_OPTION}

${KEYS_STORE}
`,
    "keys list": `Usage: taskflow keys list [--config <file>]

The stored keys, newest first: id, name, tenant (* for any), created, expires,
state (live, expired, revoked). Never a key or its hash. Creates nothing: a
SQLite file that is not there has no keys.

${KEYS_STORE}
`,
    "keys revoke": `Usage: taskflow keys revoke <id> [--config <file>]

Revoke the live key with that id (from 'taskflow keys list'; never the key
itself). Running nodes refuse it within 5 s. Exit 1 when no live key has the id.

${KEYS_STORE}
`,
    "keys rotate": `Usage: taskflow keys rotate <id> [--config <file>]

Store a new key with the old one's name, tenant and lifetime length (counted
from now), print it once on stdout, and revoke the old one (running nodes refuse
it within 5 s). Exit 1 when no live key has the id.

${KEYS_STORE}
`,
    help: `Usage: taskflow help [command]

Without a command, every command and environment variable; with one ('taskflow
help keys create'), that command's own help, as 'taskflow <command> --help'.
`,
  }),
);

/**
 * The help of the longest command the words name (`keys create` before
 * `keys`); undefined when the first word is no command with a help here.
 */
export function commandHelp(words: readonly string[]): string | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  return (
    (second === undefined ? undefined : COMMAND_HELP.get(`${first} ${second}`)) ??
    COMMAND_HELP.get(first)
  );
}

/** `taskflow keys create --help` for a words' command that has a help of its own, else `taskflow --help`. */
export function helpHint(words: readonly string[]): string {
  const [first, second] = words;
  if (first === undefined || !COMMAND_HELP.has(first)) return "taskflow --help";
  const both = `${first} ${second ?? ""}`;
  return `taskflow ${COMMAND_HELP.has(both) ? both : first} --help`;
}
