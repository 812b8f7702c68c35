/**
 * What every state's executor works with: the run's ctx, its compiled
 * definition, the process vars and the previous state's output. Expressions
 * are evaluated here, inside the workflow (never in a step): JSONata is
 * deterministic given its document, and `now` comes from ctx.now() (recorded),
 * read only when an expression mentions it so that other states write no marker.
 */
import { expressionSandbox } from "../expression-sandbox.ts";
import { parseTemplate } from "../expressions.ts";
import type { Vars } from "../../../domain/vars.ts";
import type { WorkflowContext } from "../../durable/types.ts";
import type { BranchPath, CompiledDefinition } from "./compiled-definition.ts";
import type { InterpreterDeps } from "./interpreter-deps.ts";

/** Where a state sends the run: another state, the end, or the end of the whole process. */
export type Transition = { next: string } | { end: true } | { terminate: string };

export class InterpretedRun {
  vars: Vars;
  last: unknown = null;

  constructor(
    readonly ctx: WorkflowContext,
    readonly def: CompiledDefinition,
    readonly deps: InterpreterDeps,
    readonly branch: BranchPath,
    vars: Vars,
    last: unknown,
  ) {
    this.vars = vars;
    this.last = last;
  }

  /**
   * Evaluates one JSONata expression over { vars, last, now }; undefined becomes
   * null. In the expression sandbox, under its budget: an expression that breaks
   * or overspends throws ExpressionError / ExpressionBudgetExceeded, which fails
   * the run (no retry: the same document gives the same result).
   */
  async evaluate(text: string, bindings?: Record<string, unknown>): Promise<unknown> {
    let t: number | undefined;
    // One recorded clock reading per evaluation, and none when the text has no use for it.
    const clock = () => (t ??= this.ctx.now());
    const now = text.includes("now") ? new Date(clock()).toISOString() : undefined;
    // JSONata's own clock and dice ($now, $millis, $random) would differ on a
    // replay: the sandbox answers them with the recorded ctx.now() and ctx.random().
    const usesClock = text.includes("$now") || text.includes("$millis");
    const random = text.includes("$random") ? this.ctx.random() : undefined;
    // The answer is already the JSON form: what a replay computes from the same
    // document, arrays without JSONata's marks.
    return (this.deps.expressions ?? expressionSandbox).evaluate(
      {
        text,
        doc: { vars: this.vars, last: this.last, now },
        bindings: bindings ?? {},
        clock: usesClock ? clock() : undefined,
        random,
      },
      this.ctx.tenantId,
    );
  }

  /** A literal as it is, or `{ expr }` evaluated. */
  async valueOf(v: unknown): Promise<unknown> {
    if (typeof v === "object" && v !== null && !Array.isArray(v) && "expr" in v) {
      return this.evaluate(String(v.expr));
    }
    return v;
  }

  /** Text with `{{ }}` holes filled: strings as they are, anything else as JSON. */
  async render(template: string): Promise<string> {
    const parts = parseTemplate(template);
    if (typeof parts === "string") return template; // validation refused it; never published
    let out = "";
    for (const p of parts) {
      if (p.expr === undefined) out += p.text;
      else {
        const v = await this.evaluate(p.expr);
        out += typeof v === "string" ? v : v === null ? "" : JSON.stringify(v);
      }
    }
    return out;
  }

  /** Stores a state's output: in `last`, and in vars[resultVar] when the state names one. */
  output(value: unknown, resultVar?: string): void {
    this.last = value;
    if (resultVar !== undefined) this.vars = { ...this.vars, [resultVar]: value };
  }
}

/** JSONata's truthiness for a `when`: false, null, 0, "", [] and {} are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.some(truthy);
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}
