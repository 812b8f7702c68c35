/**
 * A TaskFlow server with the Console for the Console's benchmarks: `serve --console`
 * from the sources on a fresh SQLite file, a static directory, and the login codes read
 * from its development log (as the browser tests do).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const API_KEY = "console-bench-engine-key-0123456789abcdef";

export interface BenchConsoleServer {
  url: string;
  engine<T>(method: string, path: string, body: unknown, actor: string): Promise<T>;
  codeFor(userId: string, after: number): Promise<string>;
  logLength(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a !== null ? a.port : 0));
    });
    s.on("error", reject);
  });
}

export async function startBenchConsole(users: string[]): Promise<BenchConsoleServer> {
  const dir = mkdtempSync(join(tmpdir(), "tf-console-bench-"));
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/main.ts", "serve", "--console"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "development",
        DATABASE_URL: `sqlite:${join(dir, "taskflow.db")}`,
        ADDR: `127.0.0.1:${port}`,
        WF_API_KEYS: API_KEY,
        WF_USERS: users.join(","),
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  proc.stdout.on("data", (c: Buffer) => (log += c.toString()));
  proc.stderr.on("data", (c: Buffer) => (log += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${log}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${log}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    logLength: () => log.length,
    async engine<T>(method: string, path: string, body: unknown, actor: string): Promise<T> {
      const r = await fetch(`${url}/v1/${path}`, {
        method,
        headers: { "x-api-key": API_KEY, "x-actor-id": actor, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as T;
    },
    async codeFor(userId: string, after: number): Promise<string> {
      for (let i = 0; i < 200; i++) {
        const line = [...log.slice(after).matchAll(/\{[^\n]*"loginCode"[^\n]*\}/g)]
          .map((m) => JSON.parse(m[0]) as { userId: string; loginCode: string })
          .findLast((e) => e.userId === userId);
        if (line !== undefined) return line.loginCode;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no login code for ${userId} in the server log`);
    },
    async stop() {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await new Promise((r) => proc.once("exit", r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
