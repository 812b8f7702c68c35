import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

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

/**
 * The server under test runs in its own process, as in production, so the
 * load generator does not share its event loop.
 */
export async function startServer(
  env: Record<string, string>,
  /** Extra arguments after `serve`, e.g. `["--workflows", "flows.ts"]`. */
  args: readonly string[] = [],
): Promise<{ port: number; proc: ChildProcess; stderr(): string; stop(): Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", ...args], {
    cwd: root,
    env: { ...process.env, ...env, ADDR: `127.0.0.1:${port}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
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
    await Promise.race([exited, sleep(5000)]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  };
  return { port, proc, stderr: () => stderr, stop };
}
