/**
 * How durable runs reach the inbox: `ctx.humanTask` creates an ordinary
 * referral (AssignTo) under the run's root instance through the human-task use
 * cases, and reads its tasks from the store. Task completion reaches the run
 * as a wake-up hint (see wakeRunsOnCompletion); the tasks table stays the
 * source of truth, read again whenever the run looks.
 */
import type { TaskDetailsRequest } from "../../domain/task-details.ts";
import { LRUCache } from "lru-cache";
import type { AssigneeRequest } from "../../domain/assignee.ts";
import { taskflowError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Task } from "../../domain/task.ts";
import type { Vars } from "../../domain/vars.ts";
import type { HumanTaskApi } from "../human-tasks/human-task-api.ts";
import type { Directory } from "../directory-port.ts";
import type { TaskStore } from "../human-tasks/task-store-port.ts";
import type { RunStore } from "./run-store-port.ts";
import { HumanTaskApiDecorator } from "../human-tasks/human-task-api-decorator.ts";

/** Roots remembered by wakeRunsOnCompletion (about 100 bytes each). */
const ROOTS_CACHED = 10_000;

/** Vars key that ties a referral to the ctx.humanTask call that made it. */
export const RUN_TAG = "taskflowRun";

export interface RunTag {
  runId: string;
  seq: number;
  name: string;
}

export interface HumanTaskBridge {
  /** The referral a previous attempt of this call already created, if any (exactly-once in effect). */
  findReferral(tenantId: string, rootInstanceId: string, tag: RunTag): Promise<string | undefined>;
  /**
   * The referral of this call (run, seq): the one a previous attempt created, or a
   * new one. Idempotent per (run, seq) also when two executions race the same
   * call (a lease takeover): both get the same referral; a duplicate made in the
   * race is cancelled, under the root instance's lock, before either records it.
   */
  ensureReferral(
    tenantId: string,
    rootInstanceId: string,
    tag: RunTag,
    assignee: AssigneeRequest,
    vars: Vars,
    now: number,
    /** What the tasks show (title, due, …). */
    details?: TaskDetailsRequest,
  ): Promise<string>;
  /** AssignTo under the root, acting as the run's starter. */
  assign(
    tenantId: string,
    rootInstanceId: string,
    assignee: AssigneeRequest,
    vars: Vars,
    details?: TaskDetailsRequest,
  ): Promise<string>;
  tasksOf(tenantId: string, referralId: string): Promise<Task[]>;
  /**
   * Cancels the referral's unfinished tasks (the policy was met without them,
   * the call timed out, the run is cancelled), `reason` saying which in their trail.
   */
  cancelUnfinished(
    tenantId: string,
    referralId: string,
    now: number,
    reason: string,
  ): Promise<void>;
}

/**
 * `directory`: the one the engine checks actors against. With it, a run whose
 * starter the directory does not know fails with a message about the run, not
 * the use case's "X-Actor-Id: unknown user" (no request header is involved
 * inside a workflow).
 */
export function humanTaskBridge(
  store: TaskStore,
  engine: HumanTaskApi,
  directory?: Pick<Directory, "checksIds" | "userExists">,
): HumanTaskBridge {
  const bridge: HumanTaskBridge = {
    async findReferral(tenantId, rootInstanceId, tag) {
      const children = await store.listChildren(tenantId, rootInstanceId);
      const hit = children.find((c) => isTagged(c.vars, tag));
      return hit?.id;
    },
    async ensureReferral(tenantId, rootInstanceId, tag, assignee, vars, now, details = {}) {
      const found = await bridge.findReferral(tenantId, rootInstanceId, tag);
      if (found !== undefined) return found;
      // Through the use case, so the assignee is validated as for any AssignTo.
      const mine = await bridge.assign(
        tenantId,
        rootInstanceId,
        assignee,
        { ...vars, [RUN_TAG]: tag },
        details,
      );
      // Two executions may both have got here: the store keeps one (see keepOneReferral).
      return store.keepOneReferral({
        tenantId,
        rootInstanceId,
        referralId: mine,
        sameCall: (v) => isTagged(v, tag),
        at: now,
      });
    },
    async assign(tenantId, rootInstanceId, assignee, vars, details = {}) {
      const root = await store.getInstance(tenantId, rootInstanceId);
      // A TaskflowError, so it fails the run as before: a replay cannot bring the root back.
      if (!root) throw taskflowError("RootInstanceNotFound", { instanceId: rootInstanceId });
      if (directory?.checksIds && !directory.userExists(root.startedBy)) {
        throw taskflowError("UnknownStarter", { userId: root.startedBy });
      }
      const r = await engine.assign(
        { tenantId, actorId: root.startedBy },
        {
          ...details,
          parentInstanceId: rootInstanceId,
          definitionKey: root.definitionKey,
          assignee,
          vars,
        },
      );
      return r.instanceId;
    },
    tasksOf: (tenantId, referralId) => store.listTasksOfInstance(tenantId, referralId),
    async cancelUnfinished(tenantId, referralId, now, reason) {
      await store.cancelReferral(tenantId, referralId, now, reason);
    },
  };
  return bridge;
}

function isTagged(vars: Vars | null, tag: RunTag): boolean {
  const t = vars?.[RUN_TAG] as Partial<RunTag> | undefined;
  return t?.runId === tag.runId && t.seq === tag.seq;
}

/** The signal name that wakes a run waiting on a referral. */
export const taskSignal = (referralId: string) => `__task:${referralId}`;

/**
 * Wraps the human-task use cases so that finishing a task of a run's referral
 * wakes the run (a hint after the commit; a run also re-checks on a timer).
 */
export function wakeRunsOnCompletion(
  engine: HumanTaskApi,
  store: TaskStore,
  runs: RunStore,
  onWake?: () => void,
): HumanTaskApi {
  return new RunWakingHumanTaskApi(engine, store, runs, onWake);
}

/**
 * The decorator behind wakeRunsOnCompletion: `complete` and `completeAndEnd`
 * wake the run after the inner call commits, and `start` remembers that its
 * root belongs to no run; the rest is handed on (HumanTaskApiDecorator).
 */
export class RunWakingHumanTaskApi extends HumanTaskApiDecorator {
  // Root instance → the run it belongs to, or null. An instance's kind and vars
  // never change after insert, so the answer is final: only the first completion
  // under a root reads it (a REST cycle of 3 completes made 3 reads, now 1).
  readonly #runOfRoot = new LRUCache<string, { runId: string | null }>({ max: ROOTS_CACHED });

  constructor(
    inner: HumanTaskApi,
    private readonly store: TaskStore,
    private readonly runs: RunStore,
    private readonly onWake?: () => void,
  ) {
    super(inner);
  }

  override start: HumanTaskApi["start"] = async (ctx, req) => {
    const r = await this.inner.start(ctx, req);
    // A root started as a plain process never belongs to a run (a run makes
    // its own root), so its completions need no read at all: on PostgreSQL
    // that read was 1 of a REST cycle's 6 statements.
    this.#runOfRoot.set(rootKey(ctx.tenantId, r.instanceId), { runId: null });
    return r;
  };
  override complete: HumanTaskApi["complete"] = async (ctx, taskId, req) => {
    const r = await this.inner.complete(ctx, taskId, req);
    await this.#wakeRunOf(ctx.tenantId, r.task);
    return r;
  };
  override completeAndEnd: HumanTaskApi["completeAndEnd"] = async (ctx, taskId, req) => {
    const r = await this.inner.completeAndEnd(ctx, taskId, req);
    await this.#wakeRunOf(ctx.tenantId, r.task);
    return r;
  };

  async #runIdOf(tenantId: string, rootId: string): Promise<string | null> {
    const key = rootKey(tenantId, rootId);
    const known = this.#runOfRoot.get(key);
    if (known !== undefined) return known.runId;
    const root = await this.store.getInstance(tenantId, rootId);
    if (root === undefined) return null;
    const v = root.vars?.runId;
    const runId = root.kind === "process" && typeof v === "string" ? v : null;
    this.#runOfRoot.set(key, { runId });
    return runId;
  }

  /** Signals the run whose referral `task` belongs to, if any; never throws. */
  async #wakeRunOf(tenantId: string, task: Task): Promise<void> {
    try {
      const rootRun = await this.#runIdOf(tenantId, task.rootInstanceId);
      if (rootRun === null) return;
      const referral = await this.store.getInstance(tenantId, task.instanceId);
      const tag = referral?.vars?.[RUN_TAG] as Partial<RunTag> | undefined;
      if (!tag) return;
      // The call's own run: a child run in its parent's process (a definition's
      // parallel branch) makes its referrals under the root the parent owns.
      const runId = typeof tag.runId === "string" ? tag.runId : rootRun;
      const name = taskSignal(task.instanceId);
      await this.runs.sendSignal(tenantId, runId, { id: newId(), name, payload: null }, Date.now());
      this.onWake?.();
    } catch {
      // A lost hint only delays the run until its re-check timer.
    }
  }
}

const rootKey = (tenantId: string, rootId: string) => `${tenantId}\u0000${rootId}`;
