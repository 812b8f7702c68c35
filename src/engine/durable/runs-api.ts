/**
 * Runs use cases (the /v1/runs routes): start (idempotent by caller id), read,
 * history, list, signal, cancel. The server and embedding apps call these.
 */
import { checkCreatedRange, type CreatedRange } from "../../domain/created-range.ts";
import { TaskflowError, taskflowError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import {
  DEFAULT_PAGE_SIZE,
  ID_PATTERN,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PAGE_SIZE,
} from "../../domain/limits.ts";
import {
  MAX_RUN_ID_LENGTH,
  RunStatuses,
  type Run,
  type RunEvent,
  type RunStatus,
} from "../../domain/run.ts";
import { assertKnownUser } from "../human-tasks/checks.ts";
import type { Directory } from "../directory-port.ts";
import type { WorkflowRegistry } from "./registry.ts";
import { isReservedWorkflow } from "./reserved-workflows.ts";
import { newestCursor, parseNewestCursor, parseOrder } from "./run-list-order.ts";
import {
  DEFAULT_RUN_LIMITS,
  HISTORY_PAGE_BYTES,
  MAX_HISTORY_PAGE,
  type RunLimits,
} from "./run-limits.ts";
import type { RunStore, SignalRefused } from "./run-store-port.ts";
import { SERVED_TTL_MS, ServedWorkflows } from "./served-workflows.ts";
import type { AnyWorkflowDefinition } from "./types.ts";
import type { Worker } from "./worker.ts";

const ID_RE = new RegExp(ID_PATTERN);

/**
 * The engine's own start of one of its reserved workflows (the interpreter's
 * runs of published definitions, which check the version and the vars first).
 * A symbol the package does not export: an embedding app's `runs.start` of a
 * reserved name is a NotFound, as over REST.
 */
export const START_ENGINE_RUN = Symbol("taskflow.start-engine-run");

export interface StartRunRequest {
  input?: unknown;
  id?: string | undefined;
  /** The acting user; owns the run's root instance. */
  startedBy: string;
  /** The root instance's definition key (default: the workflow's name), e.g. an interpreted definition's. */
  definitionKey?: string | undefined;
}

/** GET /v1/runs: the filters combine (and); none given, every run of the tenant. */
export interface RunListRequest {
  status?: string | undefined;
  workflow?: string | undefined;
  /** The actor who started the run (a child run: its parent's starter). */
  startedBy?: string | undefined;
  created?: CreatedRange | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  /** "oldest" (by id, the default) or "newest" (by creation time, descending). */
  order?: string | undefined;
}

export interface RunPage {
  items: Run[];
  nextCursor: string | null;
}

/** GET /v1/runs/{id}/history: a page after `cursor` (the last seq of the page before). */
export interface HistoryRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface HistoryPage {
  items: RunEvent[];
  nextCursor: string | null;
}

export class DurableRuns {
  /** Names workers serve, for starts of workflows this process has no code for. */
  private readonly served: ServedWorkflows;

  constructor(
    private readonly store: RunStore,
    private readonly registry: WorkflowRegistry,
    /** The in-process worker, if any: new runs of its workflows go straight to it. */
    private readonly worker?: Worker,
    private readonly now: () => number = Date.now,
    /** Who exists: a run's starter must be a known user (none given: anyone, as the open directory). */
    private readonly directory?: Directory,
    private readonly limits: Readonly<RunLimits> = DEFAULT_RUN_LIMITS,
  ) {
    this.served = new ServedWorkflows(store, now);
  }

  /**
   * Starts a run of a workflow registered here, or of one a worker elsewhere
   * serves (served-workflows.ts). The input is checked only for being storable
   * JSON in both cases: a definition carries no input schema (its function's
   * parameter type exists at compile time only), so a node without the code
   * checks no less than one with it.
   *
   * Checked in the order every use case follows — state, permission, input: the
   * workflow must exist (a reserved name does not, for callers), the starter
   * must be a known user (the run's root instance is theirs; an unknown one
   * would only fail later, inside the run), then the id and the input.
   */
  async start(
    tenantId: string,
    workflow: string | AnyWorkflowDefinition,
    req: StartRunRequest,
  ): Promise<{ run: Run; created: boolean }> {
    const name = typeof workflow === "string" ? workflow : workflow.name;
    if (isReservedWorkflow(name)) throw unknownWorkflow(name);
    return this.#start(tenantId, name, req);
  }

  /** See START_ENGINE_RUN: the same start, for the engine's own workflows too. */
  [START_ENGINE_RUN](
    tenantId: string,
    name: string,
    req: StartRunRequest,
  ): Promise<{ run: Run; created: boolean }> {
    return this.#start(tenantId, name, req);
  }

  async #start(
    tenantId: string,
    name: string,
    req: StartRunRequest,
  ): Promise<{ run: Run; created: boolean }> {
    const local = this.registry.get(name) !== undefined;
    if (!local && !(await this.served.isServed(name))) throw unknownWorkflow(name);
    if (this.directory) assertKnownUser(this.directory, "X-Actor-Id", req.startedBy);
    if (req.id !== undefined) checkRunId(req.id);
    assertStorableText(req.input, "input");
    const now = this.now();
    // Only a run of a workflow it has the code of may be handed to the local worker.
    const leaseTo = local ? this.worker?.reserve() : undefined;
    let result: { run: Run; created: boolean } | undefined;
    try {
      result = await this.store.createRun({
        tenantId,
        id: req.id ?? newId(now),
        workflow: name,
        input: req.input === undefined ? null : JSON.parse(JSON.stringify(req.input)),
        parentRunId: null,
        startedBy: req.startedBy,
        definitionKey: req.definitionKey,
        now,
        leaseTo,
        idGenerated: req.id === undefined,
      });
    } finally {
      if (leaseTo !== undefined) this.worker!.adopt(result?.created ? result.run : undefined);
    }
    if (result.created && leaseTo === undefined && local) this.worker?.notify();
    return result;
  }

  async get(tenantId: string, id: string): Promise<Run> {
    const r = await this.store.getRun(tenantId, id);
    if (r === undefined) throw taskflowError("RunNotFound", { runId: id });
    return r;
  }

  /** The whole current generation, in seq order (in process; over HTTP see historyPage). */
  async history(tenantId: string, id: string): Promise<RunEvent[]> {
    const r = await this.get(tenantId, id);
    return this.store.loadHistory(tenantId, id, r.firstSeq);
  }

  /**
   * One page of the current generation's events, in seq order: at most `limit`
   * (default and cap MAX_HISTORY_PAGE) and about HISTORY_PAGE_BYTES of data;
   * nextCursor null on the last page.
   */
  async historyPage(tenantId: string, id: string, q: HistoryRequest = {}): Promise<HistoryPage> {
    const limit = q.limit ?? MAX_HISTORY_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_PAGE) {
      throw taskflowError("InvalidParameter", { detail: `limit must be 1–${MAX_HISTORY_PAGE}` });
    }
    const after = q.cursor === undefined ? undefined : parseHistoryCursor(q.cursor);
    const r = await this.get(tenantId, id);
    const from = after === undefined ? r.firstSeq : Math.max(r.firstSeq, after + 1);
    const events = await this.store.loadHistory(tenantId, id, from, limit + 1);
    const items: RunEvent[] = [];
    let bytes = 0;
    for (const e of events) {
      if (items.length === limit) break;
      const size = JSON.stringify(e.data ?? null).length;
      if (items.length > 0 && bytes + size > HISTORY_PAGE_BYTES) break;
      bytes += size;
      items.push(e);
    }
    const last = items[items.length - 1];
    const more = items.length < events.length;
    return { items, nextCursor: more && last !== undefined ? String(last.seq) : null };
  }

  async list(tenantId: string, q: RunListRequest): Promise<RunPage> {
    if (q.status !== undefined && !RunStatuses.includes(q.status as RunStatus)) {
      throw taskflowError("InvalidParameter", {
        detail: `status must be one of ${RunStatuses.join(", ")}`,
      });
    }
    const by = q.startedBy;
    if (by !== undefined && (by.length > MAX_ID_LENGTH || !ID_RE.test(by))) {
      throw taskflowError("InvalidParameter", {
        detail: `startedBy must be a user id of 1–${MAX_ID_LENGTH} characters`,
      });
    }
    checkCreatedRange(q.created ?? {});
    const limit = q.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw taskflowError("InvalidParameter", { detail: `limit must be 1–${MAX_PAGE_SIZE}` });
    }
    const order = parseOrder(q.order);
    const newest = order === "newest";
    const cursor = q.cursor;
    if (!newest && cursor !== undefined && (cursor === "" || cursor.length > MAX_RUN_ID_LENGTH)) {
      throw taskflowError("MalformedCursor", { detail: "malformed cursor" });
    }
    const items = await this.store.listRuns({
      tenantId,
      status: q.status as RunStatus | undefined,
      workflow: q.workflow,
      startedBy: q.startedBy,
      createdFrom: q.created?.from,
      createdUntil: q.created?.until,
      limit: limit + 1,
      order,
      after: newest ? undefined : cursor,
      before: newest && cursor !== undefined ? parseNewestCursor(cursor) : undefined,
    });
    const more = items.length > limit;
    if (more) items.length = limit;
    const last = items[items.length - 1];
    const next = !more || last === undefined ? null : newest ? newestCursor(last) : last.id;
    return { items, nextCursor: next };
  }

  async signal(tenantId: string, id: string, name: string, payload: unknown): Promise<void> {
    if (name === "" || name.length > MAX_NAME_LENGTH)
      throw taskflowError("InvalidSignalName", { detail: "invalid signal name" });
    // "__task:…" and "__child:…" are the runtime's own wake-ups: not for callers.
    if (name.startsWith("__"))
      throw taskflowError("InvalidSignalName", {
        detail: "signal names starting with '__' are reserved",
      });
    assertStorableText(name, "signal name");
    assertStorableText(payload, "payload");
    const max = this.limits.maxSignalBytes;
    const bytes = Buffer.byteLength(JSON.stringify(payload ?? null), "utf8");
    if (max > 0 && bytes > max) {
      throw taskflowError("SignalTooLarge", { bytes, max });
    }
    const now = this.now();
    const r = await this.store.sendSignal(
      tenantId,
      id,
      { id: newId(now), name, payload: payload === undefined ? null : payload },
      now,
      { maxPending: this.limits.maxPendingSignals, maxHistory: this.limits.maxHistoryEvents },
    );
    if (r === undefined) throw taskflowError("RunNotFound", { runId: id });
    if (r === false) throw taskflowError("RunFinished", { runId: id });
    if (r !== true) throw refusedSignal(id, r);
    this.worker?.notify();
  }

  async cancel(tenantId: string, id: string): Promise<Run> {
    const r = await this.store.requestCancel(tenantId, id, this.now());
    if (r === undefined) throw taskflowError("RunNotFound", { runId: id });
    this.worker?.notify();
    return r;
  }
}

function refusedSignal(id: string, r: SignalRefused): TaskflowError {
  return r.refused === "pending"
    ? taskflowError("TooManyPendingSignals", { runId: id, cap: r.cap })
    : taskflowError("HistoryFull", { runId: id, cap: r.cap });
}

/** A history cursor: the seq of the previous page's last event. */
function parseHistoryCursor(cursor: string): number {
  if (!/^[0-9]{1,15}$/.test(cursor))
    throw taskflowError("MalformedCursor", { detail: "malformed cursor" });
  return Number(cursor);
}

function unknownWorkflow(name: string): TaskflowError {
  return taskflowError("WorkflowNotFound", {
    detail:
      `workflow '${name}' was not found: it is not registered on this node, and no worker ` +
      `has served it within the last ${SERVED_TTL_MS / 60_000} minutes`,
  });
}

export function checkRunId(id: unknown): asserts id is string {
  if (typeof id !== "string" || id.length > MAX_RUN_ID_LENGTH || !ID_RE.test(id)) {
    throw taskflowError("InvalidId", {
      detail: `run id must be 1–${MAX_RUN_ID_LENGTH} letters, digits or . _ - @ : characters`,
    });
  }
}
