/**
 * What a task asks of whoever completes it, whichever way it was made: a
 * form (a JSON Schema of the data they submit, with presentation hints — the
 * split of react-jsonschema-form's schema and uiSchema) and named actions
 * (approve / reject / …), each of which may require a comment.
 *
 * The shapes are checked here; whether the form is a JSON Schema the engine
 * can run (bounded, compilable) is the engine's check (task-form-check.ts),
 * which this layer cannot make. The completion is checked against both in
 * completion-input.ts.
 *
 * Labels and help texts are text or text per language (`{ "en": …, "fa": … }`),
 * so a definition can serve the Console in Persian and in English.
 */
import { taskflowError } from "./errors.ts";
import { MAX_COMMENT_LENGTH } from "./task-event.ts";

/** Text, or text per language tag (`en`, `fa`, `pt-BR`). */
export type LocalizedText = string | Readonly<Record<string, string>>;

export const FORM_WIDGETS = ["text", "textarea", "number", "checkbox", "date", "select"] as const;
export type FormWidget = (typeof FORM_WIDGETS)[number];

export interface FormFieldHints {
  label?: LocalizedText;
  help?: LocalizedText;
  widget?: FormWidget;
}

/** How the form's fields are shown: their order and each one's hints (top-level fields). */
export interface FormUi {
  order?: string[];
  fields?: Record<string, FormFieldHints>;
}

export interface TaskAction {
  name: string;
  label: LocalizedText | null;
  commentRequired: boolean;
}

/** An action as a request names it: its name is the key of `actions`. */
export interface TaskActionRequest {
  label?: LocalizedText;
  commentRequired?: boolean;
}

/** As stored and read. */
export interface TaskFormSpec {
  /** JSON Schema (draft 2020-12) of the completion's vars. */
  form: Record<string, unknown> | boolean | null;
  formUi: FormUi | null;
  /** In the order given; null when the task has none. */
  actions: TaskAction[] | null;
  /** A completion must name one of `actions`. */
  actionRequired: boolean;
}

export interface TaskFormRequest {
  form?: Record<string, unknown> | boolean | undefined;
  formUi?: FormUi | undefined;
  actions?: Record<string, TaskActionRequest> | undefined;
  /** Default: true when there are actions. */
  actionRequired?: boolean | undefined;
}

export const NO_TASK_FORM: TaskFormSpec = {
  form: null,
  formUi: null,
  actions: null,
  actionRequired: false,
};

export const TASK_FORM_LIMITS = {
  /** The form's JSON text (its compile cost is bounded by the engine's schema limits too). */
  maxFormLength: 64 * 1024,
  maxActions: 20,
  maxFields: 200,
  maxLabelLength: 200,
  maxHelpLength: 1_000,
  maxLanguages: 20,
  maxCommentLength: MAX_COMMENT_LENGTH,
} as const;

/** The name pattern of a definition's actions, the same for every task. */
export const ACTION_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;
const FIELD_NAME_MAX = 200;

const invalid = (field: string, detail: string) =>
  taskflowError("InvalidTaskDetails", { detail: `${field}: ${detail}` });

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The form and actions a request asks for, their shapes checked; `at` as in taskDetailsOf. */
export function taskFormOf(req: TaskFormRequest, at = ""): TaskFormSpec {
  const form = formOf(req.form, `${at}form`);
  const formUi = req.formUi === undefined || req.formUi === null ? null : uiOf(req.formUi, at);
  const actions = actionsOf(req.actions, `${at}actions`);
  const required = req.actionRequired;
  if (required !== undefined && required !== null && typeof required !== "boolean")
    throw invalid(`${at}actionRequired`, "must be true or false");
  if (required === true && actions === null)
    throw invalid(`${at}actionRequired`, "needs actions to choose from");
  return { form, formUi, actions, actionRequired: actions !== null && required !== false };
}

function formOf(v: unknown, field: string): TaskFormSpec["form"] {
  if (v === undefined || v === null) return null;
  if (typeof v !== "boolean" && !isRecord(v))
    throw invalid(field, "must be a JSON Schema (an object)");
  let size: number;
  try {
    size = JSON.stringify(v).length;
  } catch {
    throw invalid(field, "nests too deeply");
  }
  if (size > TASK_FORM_LIMITS.maxFormLength)
    throw invalid(field, `is longer than ${TASK_FORM_LIMITS.maxFormLength} characters as JSON`);
  return v;
}

function uiOf(v: unknown, at: string): FormUi {
  const field = `${at}formUi`;
  if (!isRecord(v)) throw invalid(field, "must be an object");
  const ui: FormUi = {};
  for (const key of Object.keys(v)) {
    if (key !== "order" && key !== "fields") throw invalid(`${field}.${key}`, "is not a hint");
  }
  const order = v["order"];
  if (order !== undefined) {
    if (
      !Array.isArray(order) ||
      order.length > TASK_FORM_LIMITS.maxFields ||
      !order.every((n) => typeof n === "string" && n.length > 0 && n.length <= FIELD_NAME_MAX)
    )
      throw invalid(
        `${field}.order`,
        `must list at most ${TASK_FORM_LIMITS.maxFields} field names`,
      );
    ui.order = order as string[];
  }
  const fields = v["fields"];
  if (fields !== undefined) {
    if (!isRecord(fields)) throw invalid(`${field}.fields`, "must be an object");
    const names = Object.keys(fields);
    if (names.length > TASK_FORM_LIMITS.maxFields)
      throw invalid(`${field}.fields`, `has more than ${TASK_FORM_LIMITS.maxFields} fields`);
    ui.fields = {};
    for (const name of names) ui.fields[name] = hintsOf(fields[name], `${field}.fields.${name}`);
  }
  return ui;
}

function hintsOf(v: unknown, field: string): FormFieldHints {
  if (!isRecord(v)) throw invalid(field, "must be an object");
  const hints: FormFieldHints = {};
  for (const [key, value] of Object.entries(v)) {
    if (key === "label")
      hints.label = localized(value, `${field}.label`, TASK_FORM_LIMITS.maxLabelLength);
    else if (key === "help")
      hints.help = localized(value, `${field}.help`, TASK_FORM_LIMITS.maxHelpLength);
    else if (key === "widget") {
      if (!FORM_WIDGETS.includes(value as FormWidget))
        throw invalid(`${field}.widget`, `must be one of ${FORM_WIDGETS.join(", ")}`);
      hints.widget = value as FormWidget;
    } else throw invalid(`${field}.${key}`, "is not a hint (label, help, widget)");
  }
  return hints;
}

function actionsOf(v: unknown, field: string): TaskAction[] | null {
  if (v === undefined || v === null) return null;
  if (!isRecord(v)) throw invalid(field, "must be an object of actions by name");
  const names = Object.keys(v);
  if (names.length === 0) throw invalid(field, "must name at least one action");
  if (names.length > TASK_FORM_LIMITS.maxActions)
    throw invalid(field, `has more than ${TASK_FORM_LIMITS.maxActions} actions`);
  return names.map((name) => {
    if (!ACTION_NAME.test(name))
      throw invalid(
        `${field}.${name}`,
        "an action's name is a letter or _ then letters, digits, _ or - (at most 64)",
      );
    const a = v[name];
    if (!isRecord(a)) throw invalid(`${field}.${name}`, "must be an object");
    let label: LocalizedText | null = null;
    let commentRequired = false;
    for (const [key, value] of Object.entries(a)) {
      if (key === "label")
        label = localized(value, `${field}.${name}.label`, TASK_FORM_LIMITS.maxLabelLength);
      else if (key === "commentRequired") {
        if (typeof value !== "boolean")
          throw invalid(`${field}.${name}.commentRequired`, "must be true or false");
        commentRequired = value;
      } else if (key !== "next") {
        // `next` is a definition's (where the action leads); any other key is a typo.
        throw invalid(
          `${field}.${name}.${key}`,
          "is not part of an action (label, commentRequired)",
        );
      }
    }
    return { name, label, commentRequired };
  });
}

function localized(v: unknown, field: string, max: number): LocalizedText {
  if (typeof v === "string") {
    if (v.length > max) throw invalid(field, `is longer than ${max} characters`);
    return v;
  }
  if (!isRecord(v)) throw invalid(field, "must be text or text per language");
  const langs = Object.keys(v);
  if (langs.length === 0 || langs.length > TASK_FORM_LIMITS.maxLanguages)
    throw invalid(field, `must give 1 to ${TASK_FORM_LIMITS.maxLanguages} languages`);
  for (const lang of langs) {
    if (!LANGUAGE_TAG.test(lang))
      throw invalid(`${field}.${lang}`, "is not a language tag (en, fa, pt-BR)");
    const text = v[lang];
    if (typeof text !== "string" || text.length > max)
      throw invalid(`${field}.${lang}`, `must be text of at most ${max} characters`);
  }
  return v as Record<string, string>;
}
