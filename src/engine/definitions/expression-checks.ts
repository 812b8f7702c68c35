/**
 * Every expression and template of a definition compiles. The places are
 * fixed by the language (docs/definitions.md, Expressions); a `{ expr }`
 * object is an expression only where the language allows one, so a form
 * schema that happens to have an `expr` property is left alone.
 */
import type { FieldError } from "../../domain/errors.ts";
import { scopesOf, type StateRef } from "./definition-scopes.ts";
import { expressionProblem, templateProblem } from "./expressions.ts";
import { isRecord, pointer } from "./json-pointer.ts";

export function expressionErrors(doc: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const scope of scopesOf(doc)) {
    for (const s of scope.states) checkState(s, errors);
  }
  return errors;
}

/** Fields holding a plain expression string, per state type. */
const EXPRESSION_FIELDS: Record<string, string[]> = {
  call: ["input"],
  subProcess: ["input"],
  respond: ["body"],
  timer: ["until"],
};

/** Fields that may hold `{ expr }` (or an assignee that may). */
const COMPUTED_FIELDS: Record<string, string[]> = {
  userTask: ["assignee", "due"],
  timer: ["duration"],
  waitSignal: ["timeout"],
};

function checkState(s: StateRef, errors: FieldError[]): void {
  const type = s.type ?? "";
  const st = s.state;
  for (const f of EXPRESSION_FIELDS[type] ?? []) expression(st[f], pointer(s.at, f), errors);
  for (const f of COMPUTED_FIELDS[type] ?? []) computed(st[f], pointer(s.at, f), errors);
  if (type === "userTask") {
    for (const f of ["title", "description"]) template(st[f], pointer(s.at, f), errors);
    const esc = st["escalation"];
    if (isRecord(esc)) {
      for (const f of ["after", "reassign", "addAssignee"]) {
        computed(esc[f], pointer(s.at, "escalation", f), errors);
      }
    }
  }
  if (type === "choice" && Array.isArray(st["choices"])) {
    st["choices"].forEach((c, i) => {
      if (isRecord(c)) expression(c["when"], pointer(s.at, "choices", i, "when"), errors);
    });
  }
}

/** Longer ones are refused by the schema; not compiled, so a deep one cannot exhaust the stack. */
const MAX_EXPRESSION_LENGTH = 10_000;

function expression(value: unknown, at: string, errors: FieldError[]): void {
  if (typeof value !== "string" || value.length > MAX_EXPRESSION_LENGTH) return;
  const problem = expressionProblem(value);
  if (problem !== null) errors.push({ pointer: at, reason: problem });
}

function computed(value: unknown, at: string, errors: FieldError[]): void {
  if (isRecord(value)) expression(value["expr"], pointer(at, "expr"), errors);
}

function template(value: unknown, at: string, errors: FieldError[]): void {
  if (typeof value !== "string" || value.length > MAX_EXPRESSION_LENGTH) return;
  const problem = templateProblem(value);
  if (problem !== null) errors.push({ pointer: at, reason: problem });
}
