/**
 * An embedded TaskFlow with the order workflow registered, and the REST calls a
 * shop backend and a warehouse UI would make. Used by main.ts and by
 * test/examples/order-saga.test.ts.
 */
import { createTaskflow, loadConfig, type Taskflow } from "taskflow";
import { OrderServices } from "./services.ts";
import { orderWorkflow, type OrderInput } from "./workflows.ts";

export const API_KEY = "example-key-0123456789abcdefghijkl";
/** The shop backend starts orders; wendy and walt work in the warehouse. */
export const SHOP = "shop";
export const WAREHOUSE = ["wendy", "walt"];

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   REST bodies are untyped JSON, read by field */
export type Json = any;

export interface Reply {
  status: number;
  body: Json;
}

export interface OrderApp {
  readonly tf: Taskflow;
  readonly services: OrderServices;
  /** One REST call through the engine's HTTP layer (Fastify inject, no socket). */
  request(actor: string, method: "GET" | "POST", url: string, body?: unknown): Promise<Reply>;
  /** Like request, but throws on a 4xx/5xx reply. */
  call(actor: string, method: "GET" | "POST", url: string, body?: unknown): Promise<Json>;
  /** POST /v1/workflows/order/runs as the shop; returns the run id. */
  startOrder(input: OrderInput): Promise<string>;
  /** Polls the warehouse group's inbox until the run's approval task is there. */
  waitForWarehouseTask(runId: string, member?: string): Promise<Json>;
  /** A warehouse member claims the task, then completes it with the decision. */
  decide(
    taskId: string,
    member: string,
    action: "approve" | "reject",
    note?: string,
  ): Promise<Json>;
  /** Polls GET /v1/runs/{id} until the run is completed, failed or cancelled. */
  waitForRun(runId: string, timeoutMs?: number): Promise<Json>;
  history(runId: string): Promise<Json[]>;
  close(): Promise<void>;
}

export async function openOrderApp(opts: {
  databaseUrl: string;
  services?: OrderServices;
}): Promise<OrderApp> {
  const services = opts.services ?? new OrderServices();
  const config = loadConfig({
    env: {}, // ignore the caller's DATABASE_URL, WF_* etc.: this demo brings its own
    overrides: {
      databaseUrl: opts.databaseUrl,
      apiKeys: [API_KEY],
      users: [SHOP, ...WAREHOUSE],
      groups: { warehouse: WAREHOUSE },
      logLevel: "silent",
    },
  });
  const tf = await createTaskflow(config, {
    workflows: [orderWorkflow(services)],
    worker: { pollMs: 50 },
  });

  const request: OrderApp["request"] = async (actor, method, url, body) => {
    const r = await tf.server.inject({
      method,
      url,
      headers: { "x-api-key": API_KEY, "x-actor-id": actor },
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    return { status: r.statusCode, body: r.body === "" ? null : r.json() };
  };
  const call: OrderApp["call"] = async (actor, method, url, body) => {
    const r = await request(actor, method, url, body);
    if (r.status >= 400)
      throw new Error(`${method} ${url} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  return {
    tf,
    services,
    request,
    call,
    async startOrder(input) {
      const r = await call(SHOP, "POST", "/v1/workflows/order/runs", { id: input.orderId, input });
      return r.runId as string;
    },
    async waitForWarehouseTask(runId, member = WAREHOUSE[0]!) {
      const run = await call(SHOP, "GET", `/v1/runs/${runId}`);
      return poll(async () => {
        const inbox = await call(member, "GET", "/v1/tasks?group=warehouse");
        return (inbox.items as Json[]).find((t) => t.rootInstanceId === run.rootInstanceId);
      }, `the warehouse task of ${runId}`);
    },
    async decide(taskId, member, action, note) {
      await call(member, "POST", `/v1/tasks/${taskId}/claim`);
      const vars = note === undefined ? { action } : { action, note };
      return call(member, "POST", `/v1/tasks/${taskId}/complete`, { vars });
    },
    async waitForRun(runId, timeoutMs = 10_000) {
      return poll(
        async () => {
          const r = await call(SHOP, "GET", `/v1/runs/${runId}`);
          return ["completed", "failed", "cancelled"].includes(r.status) ? r : undefined;
        },
        `run ${runId} to finish`,
        timeoutMs,
      );
    },
    async history(runId) {
      return (await call(SHOP, "GET", `/v1/runs/${runId}/history`)).items as Json[];
    },
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
