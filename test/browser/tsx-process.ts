/**
 * A node process for a browser test (a TypeScript entry point run by tsx, or the built
 * CLI): its output
 * kept as one log (servers print their addresses and login codes there), its temporary
 * directory removed once it has stopped.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface TsxProcess {
  log: () => string;
  exitCode: () => number | null;
  /** SIGTERM, wait for the exit, then remove `dir`. */
  stop: () => Promise<void>;
}

/** `node --import tsx <args>`: an example app, which runs from its TypeScript sources. */
export function startTsx(args: string[], env: NodeJS.ProcessEnv, dir: string): TsxProcess {
  return startNode(["--import", "tsx", ...args], env, dir);
}

/** `node <argv>`, e.g. the built CLI. */
export function startNode(argv: string[], env: NodeJS.ProcessEnv, dir: string): TsxProcess {
  const proc = spawn(process.execPath, argv, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  proc.stdout.on("data", (c: Buffer) => (log += c.toString()));
  proc.stderr.on("data", (c: Buffer) => (log += c.toString()));
  return {
    log: () => log,
    exitCode: () => proc.exitCode,
    stop: async () => {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await new Promise((r) => proc.once("exit", r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
