/**
 * A TypeScript entry point run by tsx in its own process for a browser test: its output
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

export function startTsx(args: string[], env: NodeJS.ProcessEnv, dir: string): TsxProcess {
  const proc = spawn(process.execPath, ["--import", "tsx", ...args], {
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
