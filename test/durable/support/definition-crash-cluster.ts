/**
 * The processes of the definition crash test, run from the compiled binary
 * (bin/taskflow.js, as test/durable/worker-process.test.ts does): where
 * requests go, and the processes that execute runs (the kill targets). Any
 * exit the test did not cause fails it, since the survivors would otherwise
 * hide it by finishing the work.
 *
 * PostgreSQL and MariaDB: an API node (`serve --no-worker`) never killed, and
 * three `worker` processes; a killed one is replaced in the background, so the
 * next kill need not wait for its start. SQLite allows one process per file:
 * the single node (`serve --workflows`) is killed and started again, and
 * requests wait for it.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { Backend } from "../../support/backends.ts";
import { freePort } from "../../support/server-process.ts";

/* eslint-disable @typescript-eslint/no-explicit-any -- REST bodies are untyped JSON, read by field */

const root = fileURLToPath(new URL("../../..", import.meta.url));
export const CRASH_KEY = "crash-key-0123456789abcdefghijkl";
export const CRASH_USER = "alice";
const WORKERS = 3;
const START_TIMEOUT_MS = 60_000;

interface Node {
  proc: ChildProcess;
  pid: number;
  port: number | undefined;
  stderr(): string;
}

export class CrashCluster {
  readonly unexpectedExits: string[] = [];
  /** The executing processes that are up (the kill targets). */
  readonly executors: Node[] = [];
  private readonly killedByUs = new Set<ChildProcess>();
  private readonly spawned: ChildProcess[] = [];
  private readonly booting = new Set<Promise<void>>();
  private api: Node | undefined;

  constructor(
    private readonly b: Backend,
    private readonly url: string,
    private readonly stepLog: string,
    /** The steps module (support/definition-crash-steps.ts, written out by the test). */
    private readonly steps: string,
  ) {}

  async start(): Promise<void> {
    if (this.b.name === "sqlite") return this.startSqliteNode();
    const [api] = await Promise.all([
      this.spawnNode(["serve", "--no-worker", "--workflows", this.steps]),
      ...Array.from({ length: WORKERS }, () => this.startWorker()),
    ]);
    this.api = api;
  }

  /**
   * Waits for replacements still starting until two executors are up, so a kill
   * leaves a survivor that keeps the runs going. Call it before choosing whom to
   * kill: a step seen in flight before a long wait has ended by the kill.
   */
  async readyForKill(): Promise<void> {
    while (this.b.name !== "sqlite" && this.executors.length < 2 && this.booting.size > 0) {
      await Promise.race(this.booting);
    }
  }

  /** kill -9 of an executor (a busy one if `busy` names any); its pid once it is gone. */
  async killOne(busy: readonly number[]): Promise<number> {
    const pool = this.executors.filter((e) => busy.includes(e.pid));
    const from = pool.length > 0 ? pool : this.executors;
    const victim = from[Math.floor(Math.random() * from.length)]!;
    this.executors.splice(this.executors.indexOf(victim), 1);
    this.killedByUs.add(victim.proc);
    const gone = new Promise((r) => victim.proc.once("exit", (_c, signal) => r(signal)));
    victim.proc.kill("SIGKILL");
    const signal = await Promise.race([gone, sleep(5_000, "still running")]);
    assert.equal(signal, "SIGKILL", `${victim.pid} was not killed by SIGKILL`);
    if (this.b.name === "sqlite") {
      this.api = undefined;
      await this.startSqliteNode();
    } else {
      const boot = this.startWorker().catch((e: Error) => {
        this.unexpectedExits.push(e.message);
      });
      this.booting.add(boot);
      void boot.finally(() => this.booting.delete(boot));
    }
    return victim.pid;
  }

  /** A request to the API node; null while there is none (SQLite, during a restart) or it died under it. */
  async request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any } | null> {
    const port = this.api?.port;
    if (port === undefined) return null;
    try {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: {
          "x-api-key": CRASH_KEY,
          "x-actor-id": CRASH_USER,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await r.text();
      return { status: r.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
    } catch {
      return null;
    }
  }

  /** Asks until the API answers below 500 (a kill on SQLite takes it down), for at most 60 s; throws on 4xx. */
  async call(method: string, path: string, body?: unknown): Promise<any> {
    for (const until = Date.now() + 60_000; ; await sleep(100)) {
      const r = await this.request(method, path, body);
      if (r !== null && r.status < 500) {
        assert.ok(r.status < 400, `${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
        return r.body;
      }
      assert.ok(Date.now() < until, `${method} ${path}: no answer for 60 s`);
    }
  }

  assertNoUnexpectedExit(): void {
    assert.deepEqual(this.unexpectedExits, [], "a process died without being killed");
  }

  stop(): void {
    for (const p of this.spawned) {
      this.killedByUs.add(p);
      if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    }
  }

  private async startSqliteNode(): Promise<void> {
    const node = await this.spawnNode(["serve", "--workflows", this.steps]);
    this.api = node;
    this.executors.push(node);
  }

  private async startWorker(): Promise<void> {
    this.executors.push(await this.spawnNode(["worker", "--workflows", this.steps]));
  }

  /** `node bin/taskflow.js <args>`; resolves once it says it listens (serve) or runs (worker). */
  private async spawnNode(args: string[]): Promise<Node> {
    const port = args[0] === "serve" ? await freePort() : undefined;
    const proc = spawn(process.execPath, ["bin/taskflow.js", ...args], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: this.url,
        NODE_ENV: "production",
        WF_API_KEYS: CRASH_KEY,
        LOG_LEVEL: "silent",
        TF_STEP_LOG: this.stepLog,
        // Not a load test: on a busy shared machine the delay check would shed requests (503).
        WF_MAX_EVENT_LOOP_DELAY: "0",
        ...(port === undefined ? {} : { ADDR: `127.0.0.1:${port}` }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.spawned.push(proc);
    let err = "";
    proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const ready = args[0] === "serve" ? "listening on" : "running workflows";
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const t = setTimeout(
        () => reject(new Error(`${args[0]} not up in 60 s: ${err}`)),
        START_TIMEOUT_MS,
      );
      proc.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes(ready)) {
          clearTimeout(t);
          resolve();
        }
      });
      proc.once("exit", (code, signal) => {
        const why = `${args[0]} ${proc.pid} exited (${code}, ${signal}): ${err}`;
        clearTimeout(t);
        reject(new Error(why)); // a no-op once it is up
        if (!this.killedByUs.has(proc)) this.unexpectedExits.push(why);
      });
    });
    return { proc, pid: proc.pid!, port, stderr: () => err };
  }
}
