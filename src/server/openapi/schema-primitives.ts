/**
 * Building blocks of the route schemas, capped by domain/limits.ts so the
 * HTTP layer and the engine agree on what an id is.
 */
import {
  DEFAULT_PAGE_SIZE,
  ID_PATTERN,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PAGE_SIZE,
  TENANT_PATTERN,
} from "../../domain/limits.ts";
import {
  DEFAULT_TASK_PRIORITY,
  MAX_TASK_DESCRIPTION_LENGTH,
  MAX_TASK_PRIORITY,
  MAX_TASK_TITLE_LENGTH,
} from "../../domain/task-details.ts";
import { TASK_FORM_LIMITS } from "../../domain/task-form.ts";
import {
  ACTION_NAME_PATTERN,
  actionProperties,
  actionsSchema,
  excludeSchema,
  formUiSchema,
} from "../../domain/task-form-schema.ts";

export const idSchema = {
  type: "string",
  minLength: 1,
  maxLength: MAX_ID_LENGTH,
  pattern: ID_PATTERN,
} as const;

export const nameSchema = { type: "string", minLength: 1, maxLength: MAX_NAME_LENGTH } as const;

/** Any JSON object; its content belongs to the host application. */
export const varsSchema = { type: "object", additionalProperties: true } as const;

export const nullable = <T extends { type: string }>(s: T) => ({ ...s, type: [s.type, "null"] });

export const timeSchema = { type: "string", format: "date-time" } as const;

/** What a person reads on a task (domain/task-details.ts), as an assignment gives it. */
export const taskDetailsProperties = {
  title: { type: "string", maxLength: MAX_TASK_TITLE_LENGTH },
  description: { type: "string", maxLength: MAX_TASK_DESCRIPTION_LENGTH },
  priority: {
    type: "integer",
    minimum: 0,
    maximum: MAX_TASK_PRIORITY,
    description: `0–100; ${DEFAULT_TASK_PRIORITY} when not given.`,
  },
  dueAt: timeSchema,
  followUpAt: timeSchema,
  form: {
    anyOf: [{ type: "object", additionalProperties: true }, { type: "boolean" }],
    description:
      "JSON Schema (draft 2020-12) of the vars the completer submits, checked on completion " +
      "(a required boolean must be true: a required checkbox is ticked).",
  },
  formUi: formUiSchema,
  actions: actionsSchema({
    type: "object",
    additionalProperties: false,
    properties: actionProperties,
  }),
  actionRequired: {
    type: "boolean",
    description: "A completion must name one of `actions` (default: true when there are actions).",
  },
  exclude: excludeSchema,
} as const;

/** What a completion hands in besides its vars (engine/human-tasks/completion-input.ts). */
export const completionProperties = {
  action: {
    type: "string",
    pattern: ACTION_NAME_PATTERN,
    maxLength: 64,
    description:
      "The action chosen: one of the task's `actions` (required when `actionRequired`). " +
      "A task without actions records any name given.",
  },
  comment: {
    type: "string",
    maxLength: TASK_FORM_LIMITS.maxCommentLength,
    description: "Why; required with an action that has `commentRequired`.",
  },
} as const;

const actorHeader = {
  ...idSchema,
  description: "The acting user, set by the host backend from its own session.",
};
const tenantHeader = {
  type: "string",
  pattern: TENANT_PATTERN,
  description: 'Tenant; "default" when absent.',
};

/** For routes that act or read an inbox: X-Actor-Id is required. */
export const actorHeaders = {
  type: "object",
  required: ["x-actor-id"],
  properties: { "x-actor-id": actorHeader, "x-tenant-id": tenantHeader },
} as const;

/** For plain reads: the tenant only (an X-Actor-Id, if sent, must still be well-formed). */
export const tenantHeaders = {
  type: "object",
  properties: { "x-actor-id": actorHeader, "x-tenant-id": tenantHeader },
} as const;

export const idParams = {
  type: "object",
  required: ["id"],
  properties: { id: idSchema },
} as const;

/** `limit` is coerced from the query string by pagination.ts before validation. */
export const pageQueryProperties = {
  limit: {
    type: "integer",
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Page size (1–${MAX_PAGE_SIZE}).`,
  },
  cursor: {
    type: "string",
    minLength: 1,
    maxLength: 4 * MAX_ID_LENGTH,
    pattern: "^[A-Za-z0-9_-]+$",
    description: "The nextCursor of the previous page.",
  },
} as const;

export interface PageQuery {
  limit?: number;
  cursor?: string;
}
