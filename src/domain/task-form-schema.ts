/**
 * The JSON Schemas of a task's form hints and actions (task-form.ts), one
 * copy for every way a task is made: the REST assignment's body and the
 * OpenAPI document (server/openapi) and a definition's userTask
 * (engine/definitions/definition-schema.ts) use these. taskFormOf checks the
 * same rules again for a caller with no schema in front (`ctx.humanTask`).
 */
import { FORM_WIDGETS, TASK_FORM_LIMITS } from "./task-form.ts";
import { MAX_ID_LENGTH, MAX_USERS_PER_ASSIGNMENT } from "./limits.ts";

export const ACTION_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_-]*$";
export const LANGUAGE_TAG_PATTERN = "^[a-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$";

/** Text, or text per language tag. */
export const localizedTextSchema = (maxLength: number) => ({
  anyOf: [
    { type: "string", maxLength },
    {
      type: "object",
      minProperties: 1,
      maxProperties: TASK_FORM_LIMITS.maxLanguages,
      propertyNames: { pattern: LANGUAGE_TAG_PATTERN },
      additionalProperties: { type: "string", maxLength },
    },
  ],
  description: 'Text, or text per language: { "en": "Approve", "fa": "تأیید" }.',
});

export const formUiSchema = {
  type: "object",
  additionalProperties: false,
  description: "How the form is shown: its top-level fields' order, labels, help texts, widgets.",
  properties: {
    order: {
      type: "array",
      maxItems: TASK_FORM_LIMITS.maxFields,
      items: { type: "string", minLength: 1, maxLength: 200 },
    },
    fields: {
      type: "object",
      maxProperties: TASK_FORM_LIMITS.maxFields,
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: {
          label: localizedTextSchema(TASK_FORM_LIMITS.maxLabelLength),
          help: localizedTextSchema(TASK_FORM_LIMITS.maxHelpLength),
          widget: { enum: [...FORM_WIDGETS] },
        },
      },
    },
  },
} as const;

/** The four-eyes rule (task-exclusions.ts). */
export const excludeSchema = {
  type: "object",
  additionalProperties: false,
  description:
    "Who may not complete (nor claim) the task: these users, the process's starter, " +
    "whoever completed an earlier task of the process.",
  properties: {
    users: {
      type: "array",
      maxItems: MAX_USERS_PER_ASSIGNMENT,
      items: { type: "string", minLength: 1, maxLength: MAX_ID_LENGTH },
    },
    starter: { type: "boolean" },
    earlierCompleters: { type: "boolean" },
  },
} as const;

/** One action's own properties (a definition's adds `next`). */
export const actionProperties = {
  label: localizedTextSchema(TASK_FORM_LIMITS.maxLabelLength),
  commentRequired: {
    type: "boolean",
    description: "A completion with this action must give a comment.",
  },
} as const;

/** Actions by name, each shaped by `entry`. */
export const actionsSchema = (entry: object) => ({
  type: "object",
  minProperties: 1,
  maxProperties: TASK_FORM_LIMITS.maxActions,
  propertyNames: { pattern: ACTION_NAME_PATTERN, maxLength: 64 },
  additionalProperties: entry,
});
