/**
 * A steady stream of real requests against a server, for fault tests: each
 * worker loops over a task cycle that takes transactions and row locks
 * (start a process, assign two users with a join, complete both, which
 * performs the join) and, when the server runs workflows, starts a durable
 * run. Every answer is recorded with what a client sees of it, so a test can
 * check how failures looked.
 */
import { setTimeout as sleep } from "node:timers/promises";

export interface Answer {
  /** Milliseconds since the load started. */
  at: number;
  what: string;
  status: number;
  contentType: string;
  retryAfter: string | null;
  code: string | undefined;
}

export interface SteadyLoad {
  readonly answers: readonly Answer[];
  /** Runs whose start was acknowledged (201 or 200), by id. */
  readonly runIds: readonly string[];
  /** Milliseconds since the load started. */
  elapsed(): number;
  stop(): Promise<void>;
}

export interface Api {
  call(
    method: string,
    path: string,
    actor: string | null,
    body?: unknown,
  ): Promise<{ status: number; headers: Headers; body: unknown }>;
}

export function apiOf(port: number, key: string): Api {
  return {
    async call(method, path, actor, body) {
      const headers: Record<string, string> = { "x-api-key": key };
      if (actor !== null) headers["x-actor-id"] = actor;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: parseOrText(text) };
    },
  };
}

function parseOrText(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Thrown inside a cycle to abandon it after a failed step (the failure is recorded). */
class Failed extends Error {}

export function startSteadyLoad(
  api: Api,
  options: { workers: number; workflow?: string },
): SteadyLoad {
  const t0 = Date.now();
  const answers: Answer[] = [];
  const runIds: string[] = [];
  let running = true;

  const step = async (
    what: string,
    ok: number[],
    method: string,
    path: string,
    actor: string,
    body?: unknown,
  ) => {
    const res = await api.call(method, path, actor, body);
    const b = res.body as { code?: string } | null;
    answers.push({
      at: Date.now() - t0,
      what,
      status: res.status,
      contentType: res.headers.get("content-type") ?? "",
      retryAfter: res.headers.get("retry-after"),
      code: typeof b === "object" && b !== null ? b.code : undefined,
    });
    if (!ok.includes(res.status)) throw new Failed(what);
    return res.body as Record<string, unknown>;
  };

  const cycle = async (w: number, i: number) => {
    const p = await step("start process", [201], "POST", "/v1/processes", "alice", {
      processKey: "conn",
    });
    const a = await step("assign", [201], "POST", "/v1/assignments", "alice", {
      parentInstanceId: p.instanceId,
      assignee: { kind: "users", ids: ["bob", "carol"] },
      onAllCompleted: { assignee: { kind: "user", id: "alice" } },
    });
    for (const t of a.tasks as { id: string; assignee: { id: string } }[]) {
      await step("complete", [200], "POST", `/v1/tasks/${t.id}/complete`, t.assignee.id, {
        vars: { w, i },
      });
    }
    if (options.workflow !== undefined) {
      const r = await step(
        "start run",
        [200, 201],
        "POST",
        `/v1/workflows/${options.workflow}/runs`,
        "alice",
        {
          input: { n: i },
        },
      );
      runIds.push(r.runId as string);
    }
  };

  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      try {
        await cycle(w, i);
      } catch (e) {
        // A transport error (no HTTP answer at all) is a failure the test must see.
        if (!(e instanceof Failed)) {
          answers.push({
            at: Date.now() - t0,
            what: `transport: ${(e as Error).message}`,
            status: 0,
            contentType: "",
            retryAfter: null,
            code: undefined,
          });
        }
        await sleep(20);
      }
    }
  };

  const workers = Array.from({ length: options.workers }, (_, w) => worker(w));
  return {
    answers,
    runIds,
    elapsed: () => Date.now() - t0,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}
