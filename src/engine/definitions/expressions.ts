/**
 * JSONata in definitions: whole expressions (`when`, `input`, `body`,
 * `until`, `{ expr }`) and templates, text with `{{ expression }}` holes.
 * JSONata evaluates over a JSON document only — no eval, no host access —
 * and compiling an expression finds its syntax errors without running it.
 */
import jsonata from "jsonata";

/** Null when `expr` compiles; otherwise why not, with the position. */
export function expressionProblem(expr: string): string | null {
  try {
    jsonata(expr);
    return null;
  } catch (e) {
    const err = e as { message?: unknown; position?: unknown; code?: unknown };
    const message = typeof err.message === "string" ? err.message : String(e);
    const at = typeof err.position === "number" ? ` at character ${err.position}` : "";
    const code = typeof err.code === "string" ? ` (${err.code})` : "";
    return `invalid JSONata${at}: ${message}${code}`;
  }
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
