/**
 * A TaskFlow process started as a user starts it — `npm start`, or the built bin
 * (bin/taskflow.js, which runs dist/) — in production, on its own SQLite file unless
 * told: for the production-start tests. Run `npm run build` after changing src/.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
/** The processes' files; the caller removes them with removeProcessFiles() in after(). */
export const dir = mkdtempSync(join(tmpdir(), "taskflow-prod-start-"));
export const removeProcessFiles = () => rmSync(dir, { recursive: true, force: true });
export const KEY = "prod-start-key-0123456789abcdef";
/** The built CLI is slower to start while other test files run beside it. */
export const START_MS = 60_000;

/** The environment without the caller's TaskFlow settings, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL|TASKFLOW_CONFIG|REDIS_.*|npm_.*)$/.test(k),
    ),
  );
  return { ...base, ...env };
}

export interface Started {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

export function start(command: string, args: string[], env: Record<string, string>): Started {
  const proc = spawn(command, args, { cwd: root, env: cleanEnv(env) });
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  proc.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return {
    proc,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      const killed = sleep(15_000).then(() => {
        proc.kill("SIGKILL");
        return null;
      });
      return Promise.race([exited, killed]);
    },
  };
}

export const bin = (args: string[], env: Record<string, string>) =>
  start(process.execPath, ["bin/taskflow.js", ...args], env);

export function production(name: string, port: number, extra: Record<string, string> = {}) {
  return {
    NODE_ENV: "production",
    ADDR: `127.0.0.1:${port}`,
    DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}`,
    LOG_LEVEL: "warn",
    WF_USERS: "alice,bob",
    ...extra,
  };
}

/** Polls /healthz until it answers; fails with the output when the process exits first. */
export async function reachable(p: Started, base: string): Promise<void> {
  const end = Date.now() + START_MS;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return;
    if (p.proc.exitCode !== null || Date.now() > end) {
      assert.fail(`not serving (exit ${p.proc.exitCode}):\n${p.stdout()}\n${p.stderr()}`);
    }
    await sleep(100);
  }
}

/** /healthz and /readyz answer 200, and the API takes the key (and refuses without it). */
export async function serves(base: string): Promise<void> {
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  const ready = await fetch(`${base}/readyz`);
  assert.equal(ready.status, 200, await ready.text());
  assert.equal((await fetch(`${base}/v1/definitions`)).status, 401);
  const withKey = await fetch(`${base}/v1/definitions`, { headers: { "x-api-key": KEY } });
  assert.equal(withKey.status, 200, await withKey.text());
}
