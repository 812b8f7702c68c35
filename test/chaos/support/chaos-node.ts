/**
 * One node of the chaos cluster: a real `taskflow serve --workflows` process,
 * so that kill -9 and SIGSTOP hit a whole server as they would in production.
 * It remembers every exit the suite did not cause: "no node needed a restart".
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { freePort } from "../../support/server-process.ts";
import { CHAOS_API_KEY } from "./chaos-http.ts";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const FLOWS = "test/chaos/support/chaos-flows.ts";
/**
 * tsx compiles the sources at start: 3–6 s on an idle 2-core machine, up to 22 s
 * (two nodes at once) when other test runs share it; 60 s is a hang.
 */
const START_TIMEOUT_MS = 60_000;
/** The last 4 KB of output is enough to name a crash in the report. */
const TAIL_BYTES = 4096;

export interface ChaosNode {
  readonly name: string;
  readonly base: string;
  /** Its side-effect log (the steps it ran). */
  readonly stepLog: string;
  readonly pid: number | undefined;
  readonly alive: boolean;
  /** Exits the suite did not ask for, with the output's tail. */
  readonly crashes: string[];
  /** kill -9; `start()` brings it back on the same port. */
  kill9(): void;
  pause(): void;
  resume(): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createNode(
  name: string,
  databaseUrl: string,
  dir: string,
): Promise<ChaosNode> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const stepLog = join(dir, `steps-${name}.log`);
  /** The current process; `expected` is set before the suite itself ends it. */
  let current: { proc: ChildProcess; expected: boolean } | undefined;
  let tail = "";
  const crashes: string[] = [];

  const keep = (c: Buffer) => {
    tail = (tail + c.toString()).slice(-TAIL_BYTES);
  };

  const spawnIt = () => {
    tail = "";
    const child = spawn(process.execPath, ["bin/taskflow.js", "serve", "--workflows", FLOWS], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        ADDR: `127.0.0.1:${port}`,
        NODE_ENV: "production",
        WF_API_KEYS: CHAOS_API_KEY,
        LOG_LEVEL: "error",
        TF_CHAOS_NODE: name,
        TF_CHAOS_LOG: stepLog,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const entry = { proc: child, expected: false };
    child.on("exit", (code, signal) => {
      if (!entry.expected) crashes.push(`node ${name} exited (${signal ?? code}): ${tail.trim()}`);
    });
    current = entry;
    return child;
  };

  const start = async () => {
    const child = spawnIt();
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`node ${name} did not start: ${tail.trim()}`);
      }
      try {
        const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) });
        if (r.ok) return;
      } catch {
        /* not listening yet */
      }
      await sleep(100);
    }
    throw new Error(`node ${name} not healthy after ${START_TIMEOUT_MS} ms: ${tail.trim()}`);
  };

  const running = () =>
    current !== undefined && current.proc.exitCode === null && current.proc.signalCode === null;
  const signal = (sig: NodeJS.Signals, expected = false) => {
    if (!current) return;
    if (expected) current.expected = true;
    current.proc.kill(sig);
  };

  return {
    name,
    base,
    stepLog,
    get pid() {
      return current?.proc.pid;
    },
    get alive() {
      return running();
    },
    crashes,
    kill9: () => signal("SIGKILL", true),
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    start,
    async close() {
      if (!current || !running()) return;
      const exited = new Promise((r) => current!.proc.once("exit", r));
      signal("SIGCONT");
      signal("SIGKILL", true);
      await Promise.race([exited, sleep(5000)]);
    },
  };
}
