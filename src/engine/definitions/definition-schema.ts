/**
 * The JSON Schema (draft 2020-12) of the definition language: the published
 * contract, served at GET /v1/definitions/schema and kept as
 * docs/definition.schema.json (a test checks they match).
 *
 * States are a `oneOf` keyed by `type` with an OpenAPI-style `discriminator`:
 * Ajv (with `discriminator: true`) then reports only the errors of the state
 * type named, not of all ten; other validators ignore the keyword and still
 * get the same meaning from `oneOf`.
 */
import { ID_PATTERN, MAX_ID_LENGTH, MAX_NAME_LENGTH } from "../../domain/limits.ts";
import { TRIGGER_METHODS } from "./definition-language.ts";
import {
  actionProperties,
  actionsSchema,
  excludeSchema,
  formUiSchema,
} from "../../domain/task-form-schema.ts";

export const DEFINITION_SCHEMA_ID = "https://taskflow.dev/schemas/definition.schema.json";

/** State names: short and plain, so they read well in pointers and logs. */
export const STATE_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_.-]*$";
export const MAX_STATE_NAME_LENGTH = 128;
export const MAX_STATES = 500;

const ISO_DURATION = "^P(?!$)(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+(\\.\\d+)?S)?)?$";
const COMPACT_DURATION = "^(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+$";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

const stateName = { type: "string", minLength: 1, maxLength: MAX_STATE_NAME_LENGTH };
const id = { type: "string", minLength: 1, maxLength: MAX_ID_LENGTH, pattern: ID_PATTERN };
const varName = { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$", maxLength: 128 };
const expression = {
  type: "string",
  minLength: 1,
  maxLength: 10_000,
  description: "A JSONata expression over { vars, last, now }.",
};

/** A state object: `type`, its own properties, nothing else. */
function state(type: string, description: string, required: string[], properties: object) {
  return {
    type: "object",
    description,
    required: ["type", ...required],
    additionalProperties: false,
    properties: { type: { const: type }, ...properties },
  };
}

const $defs = {
  stateName,
  expression,
  computed: {
    type: "object",
    description: "A value computed when the state is entered: { expr: <JSONata> }.",
    required: ["expr"],
    additionalProperties: false,
    properties: { expr: ref("expression") },
  },
  duration: {
    description: 'ISO 8601 ("P2D", "PT1H30M"), compact ("2d", "1h30m", "500ms") or milliseconds.',
    oneOf: [
      { type: "string", pattern: ISO_DURATION },
      { type: "string", pattern: COMPACT_DURATION },
      { type: "integer", minimum: 0 },
    ],
  },
  durationOrComputed: {
    description: 'A duration ("P2D", "2d", milliseconds) or { expr: <JSONata> }.',
    oneOf: [ref("duration"), ref("computed")],
  },
  template: {
    type: "string",
    maxLength: 10_000,
    description: 'Text with JSONata holes: "Approve {{ vars.amount }} EUR".',
  },
  assignee: {
    description: "{ user }, { group }, { users: [...] } or { expr: <JSONata> }.",
    oneOf: [
      { type: "object", required: ["user"], additionalProperties: false, properties: { user: id } },
      {
        type: "object",
        required: ["group"],
        additionalProperties: false,
        properties: { group: id },
      },
      {
        type: "object",
        required: ["users"],
        additionalProperties: false,
        properties: {
          users: { type: "array", minItems: 1, maxItems: 100, uniqueItems: true, items: id },
        },
      },
      ref("computed"),
    ],
  },
  completion: {
    description:
      '"all", "any" or { atLeast: N }: how many of the tasks (or branches) must finish; the rest are cancelled.',
    oneOf: [
      { enum: ["all", "any"] },
      {
        type: "object",
        required: ["atLeast"],
        additionalProperties: false,
        properties: { atLeast: { type: "integer", minimum: 1 } },
      },
    ],
  },
  jsonSchema: {
    type: ["object", "boolean"],
    description: "A JSON Schema (draft 2020-12).",
  },
  next: { ...ref("stateName"), description: "The state entered next." },
  retry: {
    type: "object",
    description: "Retry policy of a code step, as the durable runtime's RetryPolicy.",
    additionalProperties: false,
    properties: {
      maxAttempts: { type: "integer", minimum: 1, maximum: 100 },
      initialInterval: ref("duration"),
      backoff: { type: "number", minimum: 1, maximum: 10 },
      maxInterval: ref("duration"),
    },
  },
  states: {
    type: "object",
    minProperties: 1,
    maxProperties: MAX_STATES,
    propertyNames: { pattern: STATE_NAME_PATTERN, maxLength: MAX_STATE_NAME_LENGTH },
    additionalProperties: ref("state"),
  },
  state: {
    type: "object",
    required: ["type"],
    discriminator: { propertyName: "type" },
    oneOf: [
      ref("userTask"),
      ref("choice"),
      ref("parallel"),
      ref("timer"),
      ref("waitSignal"),
      ref("call"),
      ref("subProcess"),
      ref("respond"),
      ref("end"),
      ref("terminate"),
    ],
  },
  userTask: state(
    "userTask",
    "Tasks for people; waits until they complete.",
    ["assignee", "title"],
    {
      assignee: ref("assignee"),
      title: ref("template"),
      description: ref("template"),
      completion: ref("completion"),
      form: ref("jsonSchema"),
      formUi: formUiSchema,
      exclude: excludeSchema,
      actions: actionsSchema({
        type: "object",
        required: ["next"],
        additionalProperties: false,
        properties: { next: ref("next"), ...actionProperties },
      }),
      next: ref("next"),
      due: ref("durationOrComputed"),
      escalation: {
        type: "object",
        required: ["after"],
        additionalProperties: false,
        minProperties: 2,
        properties: {
          after: ref("durationOrComputed"),
          reassign: ref("assignee"),
          addAssignee: ref("assignee"),
        },
      },
      resultVar: varName,
    },
  ),
  choice: state("choice", "The first `when` that is true picks `next`.", ["choices", "otherwise"], {
    choices: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      items: {
        type: "object",
        required: ["when", "next"],
        additionalProperties: false,
        properties: { when: ref("expression"), next: ref("next") },
      },
    },
    otherwise: ref("next"),
  }),
  parallel: state("parallel", "Branches run at once; joined by `join`.", ["branches", "next"], {
    branches: {
      type: "array",
      minItems: 1,
      maxItems: 50,
      items: {
        type: "object",
        required: ["start", "states"],
        additionalProperties: false,
        properties: { start: ref("stateName"), states: ref("states") },
      },
    },
    join: ref("completion"),
    next: ref("next"),
    resultVar: varName,
  }),
  timer: {
    ...state("timer", "Waits a duration, or until an instant: exactly one of the two.", ["next"], {
      duration: ref("durationOrComputed"),
      until: ref("expression"),
      next: ref("next"),
    }),
    // Not oneOf: its errors would bury the state's other ones (see schema-check.ts).
    if: { not: { required: ["until"] } },
    then: { required: ["duration"] },
    not: { required: ["duration", "until"], $comment: "duration and until exclude each other" },
  },
  waitSignal: state("waitSignal", "Waits for a named signal.", ["signal", "next"], {
    signal: { type: "string", minLength: 1, maxLength: 128 },
    timeout: ref("durationOrComputed"),
    onTimeout: ref("next"),
    next: ref("next"),
    resultVar: varName,
  }),
  call: state("call", "Runs a code step registered by name.", ["step", "next"], {
    step: id,
    input: ref("expression"),
    retry: ref("retry"),
    timeout: ref("duration"),
    resultVar: varName,
    next: ref("next"),
    onError: ref("next"),
  }),
  subProcess: {
    ...state("subProcess", "Runs a definition or a code workflow; waits for it.", ["next"], {
      definition: id,
      version: { type: "integer", minimum: 1 },
      workflow: id,
      input: ref("expression"),
      resultVar: varName,
      next: ref("next"),
    }),
    if: { not: { required: ["workflow"] } },
    then: { required: ["definition"] },
    not: {
      required: ["definition", "workflow"],
      $comment: "definition and workflow exclude each other",
    },
    dependentRequired: { version: ["definition"] },
  },
  respond: state("respond", "Answers the HTTP request that triggered the run.", ["status"], {
    status: { type: "integer", minimum: 200, maximum: 599 },
    body: ref("expression"),
    next: ref("next"),
  }),
  end: state("end", "Ends the process (in a branch: the branch).", [], {}),
  terminate: state("terminate", "Ends the whole process at once, cancelling what is open.", [], {
    reason: { type: "string", maxLength: 1000 },
  }),
  trigger: {
    type: "object",
    required: ["method", "path"],
    additionalProperties: false,
    properties: {
      method: { enum: [...TRIGGER_METHODS] },
      path: {
        type: "string",
        maxLength: 512,
        pattern: "^(/([A-Za-z0-9._~-]+|\\{[A-Za-z_][A-Za-z0-9_]*\\}))+$|^/$",
        description: 'An absolute path; `{name}` segments are parameters: "/orders/{id}".',
      },
    },
  },
};

export const definitionSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: DEFINITION_SCHEMA_ID,
  title: "TaskFlow process definition",
  description: "A process as named states joined by `next` (see docs/definitions.md).",
  type: "object",
  required: ["key", "name", "start", "states"],
  additionalProperties: false,
  properties: {
    $schema: { type: "string" },
    key: { ...id, description: "Unique per tenant; versions are numbered per key." },
    name: { type: "string", minLength: 1, maxLength: MAX_NAME_LENGTH },
    version: {
      type: "integer",
      minimum: 1,
      description: "Informational: publishing assigns the number and writes it here.",
    },
    vars: { ...ref("jsonSchema"), description: "JSON Schema of the process vars." },
    start: ref("stateName"),
    states: ref("states"),
    triggers: { type: "array", maxItems: 50, items: ref("trigger") },
  },
  $defs,
} as const;
