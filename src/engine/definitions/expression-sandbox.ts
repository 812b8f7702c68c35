/**
 * Where a definition's expressions are evaluated: a few child processes, each
 * with a capped heap, never the engine's own process. One expression that
 * loops, recurses for ever, allocates gigabytes or spends seconds in a single
 * builtin call costs one child at most its time budget: JSONata's guardrails
 * stop it, or the child is killed and replaced, and the run fails with
 * ExpressionBudgetExceeded. The event loop (/healthz, every other run and
 * tenant) never waits for it.
 *
 * Processes, not worker threads: a worker's heap cap does not hold against one
 * large allocation (`$pad("", 1e8)` turned into JSON aborted the whole process
 * with "JavaScript heap out of memory"), while a child that runs out of memory
 * dies alone.
 *
 * Measured by `npm run bench -- expressions` (docs/benchmarks.md): the round
 * trip to a child is the cost per evaluation, against plain jsonata in-process.
 */
import { fork, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import {
  EXPRESSION_BUDGET,
  ExpressionBudgetExceeded,
  ExpressionError,
  type BudgetLimit,
  type ExpressionBudget,
} from "./expression-budget.ts";
import type { EvaluationAnswer, EvaluationRequest } from "./expression-worker.ts";

/** Children per process: an overspending expression holds one, the others go on. */
const DEFAULT_CHILDREN = 2;

/**
 * How long past its time budget an evaluation may take before its child is
 * killed: JSONata's own time check runs between evaluation steps, so only a
 * step that does not return (one huge builtin call) reaches this.
 */
const KILL_AFTER_MS = 250;

/** A child that does not say it is ready in this long is killed (and the evaluation fails). */
const START_TIMEOUT_MS = 30_000;

/** The end of a child's stderr, kept to say why it died. */
const STDERR_KEPT = 2_000;

/** Run from the sources (tsx: tests, `npm run taskflow`) or from the build (dist/). */
const fromSources = import.meta.url.endsWith(".ts");
const childFile = new URL(`./expression-worker${fromSources ? ".ts" : ".js"}`, import.meta.url);

/**
 * From the sources, the child loads its .ts file under tsx: the parent's flags carry
 * over, with tsx added when the parent runs without it (a test bundled to JavaScript
 * whose sources still sit beside it), and never a debugger's port (the parent's
 * --inspect would clash with the child's).
 */
function sourceExecArgv(): string[] {
  const flags = process.execArgv.filter((a) => !a.startsWith("--inspect"));
  const underTsx = flags.some((a, i) => a === "tsx" && flags[i - 1] === "--import");
  return underTsx ? flags : ["--import", "tsx", ...flags];
}

interface Job {
  req: EvaluationRequest;
  /** Whose run asks: a free child goes to the tenant holding the fewest. */
  tenant: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  child: ChildProcess | undefined;
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Why the child is being killed, when the sandbox kills it. */
  killedFor: BudgetLimit | "start" | undefined;
  stderr: string;
}

export class ExpressionSandbox {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  /** Children replaced because one died or overspent (tests, logs). */
  replaced = 0;

  constructor(
    readonly budget: Readonly<ExpressionBudget> = EXPRESSION_BUDGET,
    children = DEFAULT_CHILDREN,
  ) {
    this.slots = Array.from({ length: Math.max(1, children) }, () => ({
      child: undefined,
      ready: false,
      job: undefined,
      timer: undefined,
      killedFor: undefined,
      stderr: "",
    }));
  }

  /**
   * The expression's value over `doc` in its JSON form (undefined → null), or a
   * typed error. `tenant` is whose run asks: one tenant's overspending
   * expressions make another's wait for at most one time budget.
   */
  evaluate(req: EvaluationRequest, tenant = ""): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ req, tenant, resolve, reject });
      this.dispatch();
    });
  }

  /** Kills the children and fails what they and the queue held (tests); a later evaluation starts new ones. */
  close(): void {
    const closed = new Error("the expression sandbox was closed");
    for (const job of this.queue.splice(0)) job.reject(closed);
    for (const s of this.slots) {
      const c = s.child;
      s.child = undefined;
      s.ready = false;
      c?.kill("SIGKILL");
      clearTimeout(s.timer);
      s.job?.reject(closed);
      s.job = undefined;
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.job !== undefined) continue;
      slot.job = this.next();
      if (slot.child === undefined) this.spawn(slot);
      else if (slot.ready) this.send(slot);
      // else: sent once the child says it is ready
    }
  }

  /**
   * The queued job of the tenant that holds the fewest children now (the
   * oldest of its jobs; among equals, the oldest job): a tenant whose
   * expressions spin holds the children only while nobody else is waiting.
   */
  private next(): Job | undefined {
    const holding = new Map<string, number>();
    for (const s of this.slots) {
      if (s.job !== undefined) holding.set(s.job.tenant, (holding.get(s.job.tenant) ?? 0) + 1);
    }
    let best = -1;
    let fewest = Infinity;
    for (let i = 0; i < this.queue.length && fewest > 0; i++) {
      const held = holding.get((this.queue[i] as Job).tenant) ?? 0;
      if (held < fewest) {
        fewest = held;
        best = i;
      }
    }
    return best < 0 ? undefined : this.queue.splice(best, 1)[0];
  }

  /** Hands the slot's job to its ready child, with the clock of the budget starting now. */
  private send(slot: Slot): void {
    const child = slot.child;
    const job = slot.job;
    if (child === undefined || job === undefined) return;
    slot.timer = setTimeout(
      () => this.kill(slot, child, "time"),
      this.budget.timeMs + KILL_AFTER_MS,
    );
    child.send(job.req, (e) => {
      if (e) this.kill(slot, child, undefined);
    });
  }

  private spawn(slot: Slot): void {
    const child = fork(childFile, [JSON.stringify(this.budget)], {
      execArgv: [
        ...(fromSources ? sourceExecArgv() : []),
        `--max-old-space-size=${this.budget.heapMb}`,
      ],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    });
    slot.child = child;
    slot.ready = false;
    slot.killedFor = undefined;
    slot.stderr = "";
    // An idle child does not keep the engine alive; a pending evaluation's timer does.
    child.unref();
    child.channel?.unref();
    (child.stderr as Socket | null)?.unref();
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (d: string) => {
      slot.stderr = (slot.stderr + d).slice(-STDERR_KEPT);
    });
    const starting = setTimeout(() => this.kill(slot, child, "start"), START_TIMEOUT_MS);
    child.on("message", (a: EvaluationAnswer) => {
      if (slot.child !== child) return;
      if ("ready" in a) {
        clearTimeout(starting);
        slot.ready = true;
        this.send(slot);
      } else if (a.ok) {
        this.settle(slot, a.json === undefined ? null : (JSON.parse(a.json) as unknown));
      } else if (a.limit !== undefined) {
        this.settle(
          slot,
          undefined,
          new ExpressionBudgetExceeded(a.limit, budgetMessage(a.limit, this.budget, a.message)),
        );
      } else {
        this.settle(slot, undefined, new ExpressionError(a.message, a.code));
      }
    });
    child.on("error", () => this.kill(slot, child, undefined));
    child.on("exit", (code, signal) => {
      clearTimeout(starting);
      if (slot.child !== child) return;
      this.ended(slot, code, signal);
    });
  }

  /** Kills the slot's child; its exit ends the job with the reason. */
  private kill(slot: Slot, child: ChildProcess, limit: BudgetLimit | "start" | undefined): void {
    if (slot.child !== child) return;
    slot.killedFor ??= limit;
    if (!child.kill("SIGKILL") && child.exitCode !== null) this.ended(slot, child.exitCode, null);
  }

  /** The child is gone: the job it had fails with why, and the next job gets a new child. */
  private ended(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    const reason = slot.killedFor;
    const stderr = slot.stderr;
    slot.child = undefined;
    slot.ready = false;
    this.replaced++;
    // V8 aborts a process that runs out of heap (SIGABRT, or exit code 134).
    const outOfMemory = /heap out of memory/.test(stderr) || signal === "SIGABRT" || code === 134;
    let error: Error;
    if (reason === "time" || reason === "depth" || reason === "sequence" || reason === "result") {
      error = new ExpressionBudgetExceeded(reason, budgetMessage(reason, this.budget));
    } else if (outOfMemory || reason === "memory") {
      error = new ExpressionBudgetExceeded("memory", budgetMessage("memory", this.budget));
    } else {
      const why = reason === "start" ? "did not start" : `exited (${signal ?? `code ${code}`})`;
      const tail = stderr.trim().split("\n").slice(-3).join(" / ");
      error = new ExpressionError(
        `the expression evaluator ${why}${tail ? `: ${tail}` : ""}`,
        undefined,
      );
    }
    if (slot.job !== undefined) this.settle(slot, undefined, error);
    else this.dispatch();
  }

  private settle(slot: Slot, value: unknown, error?: Error): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    const job = slot.job;
    slot.job = undefined;
    if (job !== undefined) {
      if (error !== undefined) job.reject(error);
      else job.resolve(value);
    }
    this.dispatch();
  }
}

function budgetMessage(limit: BudgetLimit, b: Readonly<ExpressionBudget>, detail?: string): string {
  const what: Record<BudgetLimit, string> = {
    time: `ran longer than its ${b.timeMs} ms`,
    depth: `nested deeper than ${b.depth} evaluation steps (a recursion that does not end?)`,
    sequence: `built a sequence longer than ${b.sequence} items`,
    memory: `needed more than its ${b.heapMb} MiB of memory`,
    result: `returned more than ${b.resultChars} characters of JSON`,
  };
  return `the expression exceeded its budget: it ${what[limit]}${detail ? ` (${detail})` : ""}`;
}

/** The process's sandbox: every interpreted run evaluates through it. */
export const expressionSandbox = new ExpressionSandbox();
