/** The inbox and task transitions: claim, release, complete, complete-and-end. */
import type { FastifyInstance } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { TaskListStatuses, type TaskListStatus } from "../domain/task-list.ts";
import type { Vars } from "../domain/vars.ts";
import { ref } from "./component-schemas.ts";
import { optionalBody } from "./json-body.ts";
import { assertKnownUser } from "../engine/human-tasks/checks.ts";
import {
  claimedTaskExample,
  completionExample,
  doneTaskExample,
  pageExample,
  taskExample,
} from "./openapi-examples.ts";
import { apiErrors, jsonResponse } from "./openapi-responses.ts";
import { coerceLimit } from "./pagination.ts";
import { taskListCursor, taskListPageRequest } from "./task-list-cursor.ts";
import { toNextAssignment, type NextAssignmentBody } from "./request-bodies.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "./request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  actorHeaders,
  idParams,
  idSchema,
  pageQueryProperties,
  tenantHeaders,
  varsSchema,
  type PageQuery,
} from "./schema-primitives.ts";
import { completeAndEndView, completeResultView, taskView } from "./views.ts";

interface InboxQuery extends PageQuery {
  user?: string;
  group?: string;
  status?: TaskListStatus;
}

interface IdParams {
  id: string;
}

interface CompleteBody {
  vars?: Vars;
  next?: NextAssignmentBody;
  action?: string;
}

/** A POST on one task: its errors are the common ones, NotFound, Forbidden, NotOpen and `own`. */
const transitionSchema = (
  summary: string,
  description: string,
  ok: object,
  ...own: ("Conflict" | "NotFound")[]
) => ({
  tags: ["tasks"],
  summary,
  description,
  headers: actorHeaders,
  params: idParams,
  response: { 200: ok, ...apiErrors({ body: true }, "NotFound", "Forbidden", "NotOpen", ...own) },
});

export function taskRoutes(
  app: FastifyInstance,
  { engine, directory }: RouteOptions,
  done: () => void,
) {
  app.get<{ Querystring: InboxQuery; Headers: ActorHeaders }>(
    "/v1/tasks",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["tasks"],
        summary:
          "An inbox: the user's (default: the actor) or a group's open tasks; with `status`, " +
          "their claimed, completed, cancelled or all tasks",
        description:
          "With `user` (default: the actor): `open` (the default) — open tasks assigned to the " +
          "user or the user's groups, plus tasks the user claimed; `claimed` — tasks the user " +
          "claimed; `completed` — tasks the user completed; `cancelled` — cancelled tasks " +
          "assigned to the user or the user's groups; `all` — every task assigned to the user " +
          "or the user's groups. With `group`: the group's tasks in that state (`open`: its " +
          "inbox). Not both. Paged: `completed` and `cancelled` newest first by completion " +
          "time, the others in creation order. A cursor belongs to its `status`: another " +
          "status's cursor is a 400. With the static directory, an unknown user or group " +
          "(or actor) is a 400.",
        headers: actorHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            user: {
              ...idSchema,
              description: "Whose tasks (default: the actor).",
              examples: ["bob"],
            },
            group: { ...idSchema, description: "A group's tasks instead.", examples: ["clerks"] },
            status: {
              type: "string",
              enum: TaskListStatuses,
              default: "open",
              description: "Which tasks: open (the inbox), claimed, completed, cancelled or all.",
              examples: ["completed"],
            },
            ...pageQueryProperties,
          },
        },
        response: {
          200: jsonResponse("A page of tasks", ref("TaskPage"), pageExample(taskExample)),
          ...apiErrors({}),
        },
      },
    },
    async (req) => {
      const { user, group, status = "open" } = req.query;
      if (user !== undefined && group !== undefined) {
        throw taskflowError("InvalidParameter", { detail: "give either user or group, not both" });
      }
      const ctx = actorContext(req);
      const page = taskListPageRequest(req.query, status);
      // The use case checks whose list it is; named here when it is the actor's by default.
      if (group === undefined && user === undefined) {
        assertKnownUser(directory, "X-Actor-Id", ctx.actorId);
      }
      const result =
        group !== undefined
          ? await engine.groupInbox(ctx, group, page, status)
          : await engine.userInbox(ctx, user ?? ctx.actorId, page, status);
      return { items: result.items.map(taskView), nextCursor: taskListCursor(result, status) };
    },
  );

  app.get<{ Params: IdParams; Headers: TenantHeaders }>(
    "/v1/tasks/:id",
    {
      schema: {
        tags: ["tasks"],
        summary: "One task",
        description: "A task of the tenant, in any status (open, claimed, done, cancelled).",
        headers: tenantHeaders,
        params: idParams,
        response: {
          200: jsonResponse("The task", ref("Task"), claimedTaskExample),
          ...apiErrors({}, "NotFound"),
        },
      },
    },
    async (req) => taskView(await engine.getTask(tenantContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders }>(
    "/v1/tasks/:id/claim",
    {
      schema: transitionSchema(
        "Claim an open task (group: members only)",
        "Marks the task as being worked on by the actor: a group task by one of its members " +
          "(it leaves the group's inbox), a user task by its assignee. No body.",
        jsonResponse("The claimed task", ref("Task"), claimedTaskExample),
      ),
    },
    async (req) => taskView(await engine.claim(actorContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders }>(
    "/v1/tasks/:id/release",
    {
      schema: transitionSchema(
        "Put a claimed task back to open (claimer only)",
        "Only the claimer may release a task; a group task returns to the group's inbox. No body.",
        jsonResponse("The task, open again", ref("Task"), taskExample),
      ),
    },
    async (req) => taskView(await engine.release(actorContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: CompleteBody }>(
    "/v1/tasks/:id/complete",
    {
      preValidation: optionalBody,
      schema: {
        ...transitionSchema(
          "Complete a task, optionally assigning the next step",
          "A user task by its assignee, a group task by its claimer (an unclaimed group task " +
            "is 409 Conflict). `vars` are stored on the task; `next` assigns the next step " +
            "under the same root. When this was the referral's last open task, its " +
            "`onAllCompleted` join is performed. The body is optional.",
          jsonResponse(
            "The completed task, its referral's completion, and what it assigned",
            {
              type: "object",
              required: ["task", "completion", "next", "joined"],
              properties: {
                task: ref("Task"),
                completion: ref("Completion"),
                next: { anyOf: [ref("AssignResult"), { type: "null" }] },
                joined: { anyOf: [ref("AssignResult"), { type: "null" }] },
              },
            },
            {
              task: doneTaskExample,
              completion: { ...completionExample, allCompleted: true, open: 0, done: 2 },
              next: null,
              joined: null,
            },
          ),
          "Conflict",
        ),
        body: {
          type: "object",
          properties: {
            vars: varsSchema,
            next: ref("NextAssignment"),
            action: {
              type: "string",
              minLength: 1,
              maxLength: 128,
              description:
                "The outcome chosen (stored as `vars.action`); a task of a definition's " +
                "userTask must name one of the state's actions.",
            },
          },
          examples: [{ action: "approve", vars: { decision: "approved" } }],
        },
      },
    },
    async (req) => {
      const { vars, next, action } = req.body;
      const result = await engine.complete(actorContext(req), req.params.id, {
        vars: action === undefined ? vars : { ...vars, action },
        next: next && toNextAssignment(next),
      });
      return completeResultView(result);
    },
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: { vars?: Vars } }>(
    "/v1/tasks/:id/complete-and-end",
    {
      preValidation: optionalBody,
      schema: {
        ...transitionSchema(
          "Complete a task and end its whole process",
          "Completes the task as /complete does, then cancels every other open or claimed " +
            "task of its tree and completes the root. The body is optional.",
          jsonResponse(
            "The completed task and how many others were cancelled",
            {
              type: "object",
              required: ["task", "cancelled", "rootInstanceId"],
              properties: {
                task: ref("Task"),
                cancelled: {
                  type: "integer",
                  description: "Other open or claimed tasks cancelled",
                },
                rootInstanceId: { type: "string" },
              },
            },
            { task: doneTaskExample, cancelled: 1, rootInstanceId: doneTaskExample.rootInstanceId },
          ),
          "Conflict",
        ),
        body: {
          type: "object",
          properties: { vars: varsSchema },
          examples: [{ vars: { decision: "rejected" } }],
        },
      },
    },
    async (req) => {
      const result = await engine.completeAndEnd(actorContext(req), req.params.id, {
        vars: req.body.vars,
      });
      return completeAndEndView(result);
    },
  );
  done();
}
