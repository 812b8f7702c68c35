import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { builtCli } from "./built-cli.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export interface ServerProcess {
  port: number;
  pid: number;
  proc: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * The server under test runs in its own process, as in production, so the
 * load generator does not share its event loop. It is the built CLI
 * (test/support/built-cli.ts), as `npm start` runs it: no tsx compile of the
 * whole tree at each start; a `.ts` workflow module still loads through the
 * CLI's own TypeScript loader.
 */
export function startServer(
  env: Record<string, string>,
  /** Extra arguments after `serve`, e.g. `["--workflows", "flows.ts"]`. */
  args: readonly string[] = [],
): Promise<ServerProcess> {
  return spawnUntilHealthy(root, builtCli(["serve", ...args]), env);
}

/**
 * tsx compiles the sources at start: seconds on an idle machine, over 30 s
 * with test files side by side and other test runs on the same 2 cores (a
 * SQLite server start failed so); 60 s is a hang, as for the chaos nodes.
 */
const START_TIMEOUT_MS = 60_000;

/**
 * `node --import tsx <args>` in `cwd` with ADDR set to a free port; ready when
 * GET /healthz answers (START_TIMEOUT_MS at most). Benchmarks read its CPU from
 * /proc/<pid>/stat, apart from the load generator's.
 */
export async function startServerProcess(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
  /** Node flags before the script, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs: readonly string[] = [],
): Promise<ServerProcess> {
  return spawnUntilHealthy(cwd, [...nodeArgs, "--import", "tsx", ...args], env);
}

/** `node <argv>` in `cwd` with ADDR set to a free port; ready when GET /healthz answers. */
async function spawnUntilHealthy(
  cwd: string,
  argv: readonly string[],
  env: Record<string, string>,
): Promise<ServerProcess> {
  const port = await freePort();
  const proc = spawn(process.execPath, argv, {
    cwd,
    env: { ...process.env, ...env, ADDR: `127.0.0.1:${port}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(
        `server did not answer /healthz within ${START_TIMEOUT_MS / 1000} s: ${stderr}`,
      );
    }
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    await Promise.race([exited, sleep(10_000)]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  };
  return { port, pid: proc.pid!, proc, stderr: () => stderr, stop };
}
