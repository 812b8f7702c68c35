/**
 * The schemas of task-routes.ts's routes (validation and /openapi.json),
 * one per route, kept out of the handlers so a route reads as what it does.
 */
import { TaskListStatuses } from "../../domain/task-list.ts";
import { ref } from "../openapi/component-schemas.ts";
import {
  claimedTaskExample,
  completionExample,
  doneTaskExample,
  pageExample,
  taskExample,
} from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import {
  actorHeaders,
  idParams,
  idSchema,
  pageQueryProperties,
  tenantHeaders,
  varsSchema,
  completionProperties,
} from "../openapi/schema-primitives.ts";

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

/** GET /v1/tasks */
export const getTasksSchema = {
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
};

/** GET /v1/tasks/:id */
export const getTasksByIdSchema = {
  tags: ["tasks"],
  summary: "One task",
  description: "A task of the tenant, in any status (open, claimed, done, cancelled).",
  headers: tenantHeaders,
  params: idParams,
  response: {
    200: jsonResponse("The task", ref("Task"), claimedTaskExample),
    ...apiErrors({}, "NotFound"),
  },
};

/** POST /v1/tasks/:id/claim */
export const postTasksByIdClaimSchema = transitionSchema(
  "Claim an open task (group: members only)",
  "Marks the task as being worked on by the actor: a group task by one of its members " +
    "(it leaves the group's inbox), a user task by its assignee. No body.",
  jsonResponse("The claimed task", ref("Task"), claimedTaskExample),
);

/** POST /v1/tasks/:id/release */
export const postTasksByIdReleaseSchema = transitionSchema(
  "Put a claimed task back to open (claimer only)",
  "Only the claimer may release a task; a group task returns to the group's inbox. No body.",
  jsonResponse("The task, open again", ref("Task"), taskExample),
);

/** POST /v1/tasks/:id/complete */
export const postTasksByIdCompleteSchema = {
  ...transitionSchema(
    "Complete a task, optionally assigning the next step",
    "A user task by its assignee, a group task by its claimer (an unclaimed group task " +
      "is 409 Conflict). `vars` are checked against the task's `form` and stored on the " +
      "task with the `action` chosen and the `comment`; `next` assigns the next step " +
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
      ...completionProperties,
    },
    examples: [{ action: "approve", comment: "Within budget", vars: { amount: 120 } }],
  },
};

/** POST /v1/tasks/:id/complete-and-end */
export const postTasksByIdCompleteAndEndSchema = {
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
    properties: { vars: varsSchema, ...completionProperties },
    examples: [{ action: "reject", comment: "Out of stock", vars: {} }],
  },
};
