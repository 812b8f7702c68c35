/**
 * HR starts a termination (a process of the published definition, in HR's
 * company) and follows the ones it started: each is a TaskFlow run whose
 * status says whether it is still with the teams or closed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TaskflowClient } from "taskflow/client";
import { managersOf } from "./people.ts";
import { requireCaller, type Caller } from "./request-guards.ts";
import type { Sessions } from "./sessions.ts";
import { DEFINITION_KEY } from "./private-taskflow.ts";
import { taskflowFor } from "./taskflow-for.ts";

interface StartBody {
  employee?: string;
  manager?: string;
  lastDay?: string;
  reason?: string;
}

export interface TerminationView {
  id: string;
  employee: string;
  lastDay: string;
  status: string;
  startedAt: string;
}

/** The caller when they are in HR; otherwise a 401 or 403 is sent and undefined returned. */
async function requireHr(
  req: FastifyRequest,
  reply: FastifyReply,
  sessions: Sessions,
): Promise<Caller | undefined> {
  const caller = await requireCaller(req, reply, sessions);
  if (caller === undefined || caller.person.role === "hr") return caller;
  await reply.code(403).send({ error: "Forbidden", detail: "only HR handles terminations" });
  return undefined;
}

interface RunInput {
  key: string;
  version: number;
  vars: Record<string, unknown>;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");

export function terminationRoutes(
  app: FastifyInstance,
  client: TaskflowClient,
  sessions: Sessions,
) {
  app.get("/api/managers", async (req, reply) => {
    const caller = await requireHr(req, reply, sessions);
    if (caller === undefined) return;
    return { items: managersOf(caller.person.company).map((p) => ({ id: p.id, name: p.name })) };
  });

  app.post<{ Body: StartBody | null }>("/api/terminations", async (req, reply) => {
    const caller = await requireHr(req, reply, sessions);
    if (caller === undefined) return;
    const { employee, manager, lastDay, reason } = req.body ?? {};
    // The manager must be one of the company's: the definition assigns them a task by id.
    if (!managersOf(caller.person.company).some((m) => m.id === manager)) {
      return reply
        .code(400)
        .send({ error: "Validation", detail: "pick a manager of your company" });
    }
    const vars = { employee, manager, lastDay, ...(reason ? { reason } : {}) };
    const started = await taskflowFor(client, caller).startProcess({
      processKey: DEFINITION_KEY,
      vars,
    });
    return reply.code(201).send({ id: started.instanceId });
  });

  app.get("/api/terminations", async (req, reply) => {
    const caller = await requireHr(req, reply, sessions);
    if (caller === undefined) return;
    const tf = taskflowFor(client, caller);
    const items: TerminationView[] = [];
    for await (const p of tf.listProcessesAll()) {
      if (p.definitionKey !== DEFINITION_KEY) continue;
      // A definition's run: its input holds the vars the process was started with.
      const run = await tf.getRun<RunInput>(text(p.vars["runId"]));
      const vars = run.input?.vars ?? {};
      items.push({
        id: p.id,
        employee: text(vars["employee"]),
        lastDay: text(vars["lastDay"]),
        status: run.status === "completed" ? "closed" : "in progress",
        startedAt: p.createdAt,
      });
    }
    return { items: items.reverse() };
  });
}
