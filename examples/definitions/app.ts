/**
 * An embedded TaskFlow for the definition examples: one directory of people
 * for all three, the REST calls their users would make (publish a definition,
 * start a process, read an inbox, claim, complete with an action), and a clock
 * the tests can move forward (escalations after two days). Used by run.ts and
 * by the tests in test/examples/.
 */
import { readFileSync } from "node:fs";
import { createTaskflow, loadConfig, type Taskflow } from "taskflow";

export const API_KEY = "example-key-0123456789abcdefghijkl";

/** Everyone the examples know, and their groups. */
export const USERS = [
  "emma", // employee
  "mia", // manager
  "dave", // the manager's deputy
  "hank", // hr
  "hana", // hr
  "hilda", // hr lead
  "paul", // buyer
  "ivan", // it
  "iris", // it
  "fiona", // finance
  "frank", // finance director
  "felix", // finance director
];
export const GROUPS: Record<string, string[]> = {
  hr: ["hank", "hana"],
  it: ["ivan", "iris"],
  finance: ["fiona"],
  directors: ["frank", "felix"],
};

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   REST bodies are untyped JSON, read by field */
export type Json = any;

export interface Reply {
  status: number;
  body: Json;
}

/**
 * Wall-clock time plus an offset the tests advance: the worker and the runs'
 * recorded time read it, so a two-day escalation timer becomes due at once.
 */
export class ShiftedClock {
  offsetMs = 0;
  readonly now = (): number => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface ExampleApp {
  readonly tf: Taskflow;
  readonly clock: ShiftedClock;
  request(
    actor: string,
    method: string,
    url: string,
    body?: unknown,
    type?: string,
  ): Promise<Reply>;
  /** Like request, but throws on a 4xx/5xx reply. */
  call(actor: string, method: string, url: string, body?: unknown): Promise<Json>;
  /** Publishes a definition file (YAML) as `actor`: its new version number. */
  publish(actor: string, file: string): Promise<number>;
  /** POST /v1/processes: what it answers (instanceId, runId, version). */
  startProcess(actor: string, processKey: string, vars: Json): Promise<Json>;
  /** The open tasks of a user's inbox (GET /v1/tasks?user=), or a group's (`group:` prefix). */
  inbox(actor: string, of?: string): Promise<Json[]>;
  /** Polls `actor`'s inbox until a task matching `pick` is there. */
  waitForTask(actor: string, pick: (task: Json) => boolean, of?: string): Promise<Json>;
  /** The title the definition gave a task (its referral's vars). */
  title(task: Json): Promise<string>;
  /** Claims a group task, then completes it with an action and form data. */
  complete(actor: string, task: Json, action?: string, vars?: Json): Promise<Json>;
  /** Polls GET /v1/runs/{id} until the run is final. */
  waitForRun(runId: string, timeoutMs?: number): Promise<Json>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function openExampleApp(opts: {
  databaseUrl: string;
  clock?: ShiftedClock;
}): Promise<ExampleApp> {
  const clock = opts.clock ?? new ShiftedClock();
  const config = loadConfig({
    env: {}, // ignore the caller's DATABASE_URL, WF_* etc.: the examples bring their own
    overrides: {
      databaseUrl: opts.databaseUrl,
      apiKeys: [API_KEY],
      users: USERS,
      groups: GROUPS,
      logLevel: "silent",
    },
  });
  const tf = await createTaskflow(config, {
    worker: { pollMs: 50, now: clock.now, contextOptions: { now: clock.now } },
  });

  const request: ExampleApp["request"] = async (actor, method, url, body, type) => {
    const r = await tf.server.inject({
      method,
      url,
      headers: {
        "x-api-key": API_KEY,
        "x-actor-id": actor,
        ...(type !== undefined ? { "content-type": type } : {}),
      },
      ...(body !== undefined ? { payload: body as string } : {}),
    });
    return { status: r.statusCode, body: r.body === "" ? null : r.json() };
  };
  const call: ExampleApp["call"] = async (actor, method, url, body) => {
    const r = await request(actor, method, url, body);
    if (r.status >= 400)
      throw new Error(`${method} ${url} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const inbox: ExampleApp["inbox"] = async (actor, of) => {
    const query = of?.startsWith("group:") ? `group=${of.slice(6)}` : `user=${of ?? actor}`;
    return (await call(actor, "GET", `/v1/tasks?${query}`)).items;
  };

  return {
    tf,
    clock,
    request,
    call,
    inbox,
    async publish(actor, file) {
      const key = /^key:\s*(\S+)/m.exec(readFileSync(file, "utf8"))?.[1];
      const r = await request(
        actor,
        "POST",
        `/v1/definitions/${key}/publish`,
        readFileSync(file, "utf8"),
        "application/yaml",
      );
      // 200: the published version is this file already (unchanged), no new one.
      if (r.status !== 201 && r.status !== 200)
        throw new Error(`publish ${file} → ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.version;
    },
    startProcess: (actor, processKey, vars) =>
      call(actor, "POST", "/v1/processes", { processKey, vars }),
    async waitForTask(actor, pick, of) {
      for (const until = Date.now() + 10_000; ; await sleep(25)) {
        const found = (await inbox(actor, of)).find(pick);
        if (found !== undefined) return found;
        if (Date.now() > until) throw new Error(`no such task for ${of ?? actor} after 10 s`);
      }
    },
    async title(task) {
      const referral = await call(USERS[0]!, "GET", `/v1/instances/${task.instanceId}`);
      return String(referral.vars?.title ?? "");
    },
    async complete(actor, task, action, vars) {
      if (task.assignee.kind === "group") await call(actor, "POST", `/v1/tasks/${task.id}/claim`);
      return call(actor, "POST", `/v1/tasks/${task.id}/complete`, {
        ...(action !== undefined ? { action } : {}),
        ...(vars !== undefined ? { vars } : {}),
      });
    },
    async waitForRun(runId, timeoutMs = 15_000) {
      for (const until = Date.now() + timeoutMs; ; await sleep(25)) {
        const run = await call("hank", "GET", `/v1/runs/${runId}`);
        if (["completed", "failed", "cancelled"].includes(run.status)) return run;
        if (Date.now() > until) throw new Error(`run ${runId} still ${run.status}`);
      }
    },
    close: () => tf.close(),
  };
}
