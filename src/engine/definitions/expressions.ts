/**
 * JSONata in definitions: whole expressions (`when`, `input`, `body`,
 * `until`, `{ expr }`) and templates, text with `{{ expression }}` holes.
 * JSONata evaluates over a JSON document only — no host access, and no
 * `$eval` (refused here, unbound where expressions run) — and compiling an
 * expression finds its syntax errors without running it. What an expression
 * may spend when it runs is bounded by the expression budget
 * (expression-budget.ts): a loop is a run failure, not a validation error.
 */
import jsonata from "jsonata";
import { describeJsonataError, REMOVED_FUNCTIONS } from "./expression-budget.ts";
import { regexProblem } from "./expression-regex.ts";

/** Null when `expr` compiles and uses only what expressions may; otherwise why not, with the position. */
export function expressionProblem(expr: string): string | null {
  let ast: jsonata.ExprNode;
  try {
    ast = jsonata(expr).ast();
  } catch (e) {
    const err = e as { message?: unknown; position?: unknown; code?: unknown };
    const message = typeof err.message === "string" ? err.message : String(e);
    const at = typeof err.position === "number" ? ` at character ${err.position}` : "";
    const code = typeof err.code === "string" ? ` (${err.code})` : "";
    return `invalid JSONata${at}: ${message}${code}`;
  }
  try {
    return astProblem(ast);
  } catch (e) {
    // A tree too deep to walk (a stack overflow): refused like one too deep to parse.
    return `invalid JSONata: ${describeJsonataError(e).message}`;
  }
}

/**
 * A removed function named anywhere (called, or passed on as `$e := $eval`), or
 * a regex literal RE2 cannot run. The tree is walked whole: every node kind
 * keeps its children under different keys.
 */
function astProblem(node: unknown): string | null {
  if (node instanceof RegExp) return regexProblem(node);
  if (Array.isArray(node)) {
    for (const n of node) {
      const p = astProblem(n);
      if (p !== null) return p;
    }
    return null;
  }
  if (typeof node !== "object" || node === null) return null;
  const n = node as { type?: unknown; value?: unknown; position?: unknown };
  if (n.type === "variable" && typeof n.value === "string" && REMOVED_FUNCTIONS.includes(n.value)) {
    const at = typeof n.position === "number" ? ` at character ${n.position}` : "";
    return `$${n.value}${at} is not available: it would run data as code`;
  }
  for (const v of Object.values(node)) {
    const p = astProblem(v);
    if (p !== null) return p;
  }
  return null;
}

export interface TemplatePart {
  text: string;
  /** An expression hole; absent for literal text. */
  expr?: string;
}

/**
 * A template's literal text and holes, or why it is malformed: every `{{`
 * needs its `}}`, and a hole holds an expression.
 */
export function parseTemplate(template: string): TemplatePart[] | string {
  const parts: TemplatePart[] = [];
  let rest = template;
  for (let open = rest.indexOf("{{"); open >= 0; open = rest.indexOf("{{")) {
    const close = rest.indexOf("}}", open + 2);
    if (close < 0)
      return `has a '{{' at character ${template.length - rest.length + open} with no '}}'`;
    if (open > 0) parts.push({ text: rest.slice(0, open) });
    const expr = rest.slice(open + 2, close).trim();
    if (expr === "") return "has an empty '{{ }}'";
    parts.push({ text: rest.slice(open, close + 2), expr });
    rest = rest.slice(close + 2);
  }
  if (rest !== "") parts.push({ text: rest });
  return parts;
}

/** Null when every hole of the template compiles; otherwise the first problem. */
export function templateProblem(template: string): string | null {
  const parts = parseTemplate(template);
  if (typeof parts === "string") return parts;
  for (const p of parts) {
    if (p.expr === undefined) continue;
    const problem = expressionProblem(p.expr);
    if (problem !== null) return `{{ ${p.expr.slice(0, 80)} }}: ${problem}`;
  }
  return null;
}
