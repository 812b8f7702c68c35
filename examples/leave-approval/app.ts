/**
 * An embedded TaskFlow with the leave workflow registered, and the REST calls an
 * HR portal's backend would make for employees, managers and HR. Used by main.ts
 * and by test/examples/leave-approval.test.ts.
 */
import { createTaskflow, loadConfig, type Taskflow } from "taskflow";
import { leaveWorkflow, LeaveServices, type LeaveRequest } from "./workflows.ts";

export const API_KEY = "example-key-0123456789abcdefghijkl";
export const EMPLOYEES = ["emma", "eli"];
export const MANAGER = "mia";
export const HR = ["hank", "hana"];

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   REST bodies are untyped JSON, read by field */
export type Json = any;

export interface Reply {
  status: number;
  body: Json;
}

export interface LeaveApp {
  readonly tf: Taskflow;
  readonly hr: LeaveServices;
  request(actor: string, method: "GET" | "POST", url: string, body?: unknown): Promise<Reply>;
  /** Like request, but throws on a 4xx/5xx reply. */
  call(actor: string, method: "GET" | "POST", url: string, body?: unknown): Promise<Json>;
  /** The employee starts a request: POST /v1/workflows/leave/runs. */
  submit(req: LeaveRequest): Promise<string>;
  /** Polls a user's inbox (GET /v1/tasks?user=) until a task of the run is there. */
  waitForTask(runId: string, user: string): Promise<Json>;
  /** Completes a task; a group task is claimed first. */
  decide(task: Json, actor: string, action: "approve" | "reject", note?: string): Promise<Json>;
  /** The employee withdraws: POST /v1/runs/{id}/signals/withdraw. */
  withdraw(runId: string, employee: string, reason: string): Promise<Json>;
  waitForRun(runId: string, timeoutMs?: number): Promise<Json>;
  history(runId: string): Promise<Json[]>;
  close(): Promise<void>;
}

export async function openLeaveApp(opts: {
  databaseUrl: string;
  hr?: LeaveServices;
}): Promise<LeaveApp> {
  const hr = opts.hr ?? new LeaveServices();
  const config = loadConfig({
    env: {}, // ignore the caller's DATABASE_URL, WF_* etc.: this demo brings its own
    overrides: {
      databaseUrl: opts.databaseUrl,
      apiKeys: [API_KEY],
      users: [...EMPLOYEES, MANAGER],
      groups: { hr: HR },
      logLevel: "silent",
    },
  });
  const tf = await createTaskflow(config, {
    workflows: [leaveWorkflow(hr)],
    worker: { pollMs: 50 },
  });

  const request: LeaveApp["request"] = async (actor, method, url, body) => {
    const r = await tf.server.inject({
      method,
      url,
      headers: { "x-api-key": API_KEY, "x-actor-id": actor },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    return { status: r.statusCode, body: r.body === "" ? null : r.json() };
  };
  const call: LeaveApp["call"] = async (actor, method, url, body) => {
    const r = await request(actor, method, url, body);
    if (r.status >= 400)
      throw new Error(`${method} ${url} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const runOf = (runId: string) => call(EMPLOYEES[0]!, "GET", `/v1/runs/${runId}`);

  return {
    tf,
    hr,
    request,
    call,
    async submit(req) {
      const r = await call(req.employee, "POST", "/v1/workflows/leave/runs", {
        id: req.requestId,
        input: req,
      });
      return r.runId as string;
    },
    async waitForTask(runId, user) {
      const { rootInstanceId } = await runOf(runId);
      return poll(async () => {
        const inbox = await call(user, "GET", `/v1/tasks?user=${user}`);
        return (inbox.items as Json[]).find((t) => t.rootInstanceId === rootInstanceId);
      }, `a task of ${runId} in ${user}'s inbox`);
    },
    async decide(task, actor, action, note) {
      if (task.assignee.kind === "group") await call(actor, "POST", `/v1/tasks/${task.id}/claim`);
      const vars = note === undefined ? { action } : { action, note };
      return call(actor, "POST", `/v1/tasks/${task.id}/complete`, { vars });
    },
    withdraw: (runId, employee, reason) =>
      call(employee, "POST", `/v1/runs/${runId}/signals/withdraw`, { reason }),
    waitForRun: (runId, timeoutMs = 10_000) =>
      poll(
        async () => {
          const r = await runOf(runId);
          return ["completed", "failed", "cancelled"].includes(r.status) ? r : undefined;
        },
        `run ${runId} to finish`,
        timeoutMs,
      ),
    history: async (runId) =>
      (await call(EMPLOYEES[0]!, "GET", `/v1/runs/${runId}/history`)).items as Json[],
    close: () => tf.close(),
  };
}

async function poll<T>(get: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
