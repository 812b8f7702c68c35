/**
 * What a completion hands in, checked against what its task asks
 * (domain/task-form.ts), the same for a task made by a REST assignment,
 * `ctx.humanTask` or a definition's userTask:
 *
 * - the action: one of the task's actions (required when the task says so),
 *   named at the top of the request or — as before actions were the task's
 *   own — as `vars.action`; a task with no actions takes any well-formed name;
 * - the comment, required by an action that says so;
 * - the vars, against the form's schema, a required checkbox ticked
 *   (required-checkboxes.ts).
 *
 * Every finding is reported at once, as a 400 CompletionMismatch naming each
 * field. The checks run after the task's state and the actor's permission
 * (complete.ts), so a done task is 409 and a stranger 403 whatever they send.
 */
import { documentError, type FieldError, taskflowError } from "../../domain/errors.ts";
import type { Task } from "../../domain/task.ts";
import { ACTION_NAME, TASK_FORM_LIMITS } from "../../domain/task-form.ts";
import type { Vars } from "../../domain/vars.ts";
import { untickedCheckboxErrors } from "../definitions/required-checkboxes.ts";
import { compileSchema, type CompiledSchema } from "../definitions/schema-compiler.ts";
import { valueFindings } from "../definitions/value-check.ts";

export interface CompletionRequest {
  vars?: Vars | undefined;
  action?: string | undefined;
  comment?: string | undefined;
}

/** What the completion writes on its task. */
export interface CompletionInput {
  vars: Vars | null;
  action: string | null;
  comment: string | null;
}

type FormTask = Pick<Task, "form" | "actions" | "actionRequired">;

export function completionInputOf(task: FormTask, req: CompletionRequest): CompletionInput {
  const errors: FieldError[] = [];
  const comment = commentOf(req.comment, errors);
  const action = actionOf(task, req, comment, errors);
  if (task.form !== null) {
    const { action: _a, ...data } = req.vars ?? {};
    errors.push(...valueFindings(formCheck(task.form), data, "/vars", "the completion's vars"));
    errors.push(...untickedCheckboxErrors(task.form, data));
  }
  if (errors.length > 0) throw documentError("CompletionMismatch", {}, errors);
  return { vars: req.vars ?? null, action, comment };
}

function commentOf(v: unknown, errors: FieldError[]): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") {
    errors.push({ pointer: "/comment", reason: "must be text" });
    return null;
  }
  const text = v.trim();
  if (text.length > TASK_FORM_LIMITS.maxCommentLength) {
    errors.push({
      pointer: "/comment",
      reason: `is longer than ${TASK_FORM_LIMITS.maxCommentLength} characters`,
    });
  }
  return text === "" ? null : text;
}

function actionOf(
  task: FormTask,
  req: CompletionRequest,
  comment: string | null,
  errors: FieldError[],
): string | null {
  const inVars = req.vars?.["action"];
  const given = req.action;
  if (given !== undefined && (typeof given !== "string" || !ACTION_NAME.test(given))) {
    errors.push({ pointer: "/action", reason: "must be an action's name" });
    return null;
  }
  if (given !== undefined && inVars !== undefined && inVars !== given) {
    errors.push({ pointer: "/vars/action", reason: `differs from action '${given}'` });
    return null;
  }
  const named = given ?? (typeof inVars === "string" ? inVars : undefined);
  const actions = task.actions;
  if (actions === null) {
    // No actions to choose from: an action named in the vars is kept as the code reads it.
    return named !== undefined && ACTION_NAME.test(named) ? named : null;
  }
  const names = actions.map((a) => a.name).join(", ");
  const pointer = given !== undefined || inVars === undefined ? "/action" : "/vars/action";
  if (named === undefined) {
    if (task.actionRequired) errors.push({ pointer, reason: `is required: one of ${names}` });
    return null;
  }
  const chosen = actions.find((a) => a.name === named);
  if (chosen === undefined) {
    errors.push({ pointer, reason: `must be one of: ${names}` });
    return null;
  }
  if (chosen.commentRequired && comment === null)
    errors.push({ pointer: "/comment", reason: `is required with action '${named}'` });
  return named;
}

/** The task's form compiled (cached by its text in the compiler). */
function formCheck(form: object | boolean): CompiledSchema {
  const outcome = compileSchema(form);
  if (outcome.ok) return outcome;
  // A form stored before a rule it breaks: the task cannot be completed through it.
  const why = outcome.errors.map((e) => `/form${e.pointer} ${e.reason}`).join("; ");
  throw taskflowError("FormUncheckable", { why });
}
