/**
 * The caller's tasks: the inbox (their own and their groups' open tasks, in
 * their company), one task, and completing it with the step's form. A group
 * task is claimed first, as TaskFlow requires; TaskFlow checks membership.
 */
import type { FastifyInstance } from "fastify";
import type { TaskflowClient, Vars } from "taskflow/client";
import { directory } from "./people.ts";
import { requireCaller } from "./request-guards.ts";
import type { Sessions } from "./sessions.ts";
import { taskflowFor } from "./taskflow-for.ts";
import { mayView, viewOf, type TaskView } from "./task-view.ts";

const groupsOf = (userId: string): string[] =>
  Object.entries(directory().groups)
    .filter(([, members]) => members.includes(userId))
    .map(([group]) => group);

interface CompleteBody {
  vars?: Vars;
}

export function taskRoutes(app: FastifyInstance, client: TaskflowClient, sessions: Sessions) {
  app.get("/api/tasks", async (req, reply) => {
    const caller = await requireCaller(req, reply, sessions);
    if (caller === undefined) return;
    const tf = taskflowFor(client, caller);
    const views: TaskView[] = [];
    for await (const task of tf.inboxAll()) {
      const view = await viewOf(tf, task);
      if (view !== undefined) views.push(view);
    }
    return { items: views };
  });

  app.get<{ Params: { id: string } }>("/api/tasks/:id", async (req, reply) => {
    const caller = await requireCaller(req, reply, sessions);
    if (caller === undefined) return;
    const tf = taskflowFor(client, caller);
    // Another company's task id is not found here: the tenant is the caller's own.
    const task = await tf.getTask(req.params.id);
    if (!mayView(caller.person, task, groupsOf(caller.person.id))) {
      return reply.code(404).send({ error: "NotFound" });
    }
    return viewOf(tf, task);
  });

  app.post<{ Params: { id: string }; Body: CompleteBody | null }>(
    "/api/tasks/:id/complete",
    async (req, reply) => {
      const caller = await requireCaller(req, reply, sessions);
      if (caller === undefined) return;
      const tf = taskflowFor(client, caller);
      const task = await tf.getTask(req.params.id);
      if (task.assignee.kind === "group" && task.status === "open") await tf.claim(task.id);
      const { task: done } = await tf.complete(task.id, { vars: req.body?.vars ?? {} });
      return { id: done.id, status: done.status };
    },
  );
}
