/**
 * A server under test in its own process (`node --import tsx <script> …`), so
 * its CPU can be read from /proc/<pid>/stat apart from the load generator's.
 * Ready when GET /healthz answers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../test/support/server-process.ts";

export interface ServerChild {
  port: number;
  pid: number;
  proc: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

export async function startServerChild(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
  /** Node flags before the script, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs: readonly string[] = [],
): Promise<ServerChild> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...nodeArgs, "--import", "tsx", ...args], {
    cwd,
    env: { ...process.env, ...env, ADDR: `127.0.0.1:${port}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server did not answer /healthz within 30 s: ${stderr}`);
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
