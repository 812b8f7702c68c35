/**
 * The child process that evaluates a definition's expressions
 * (expression-sandbox.ts forks it with a capped heap): one evaluation at a
 * time, each under
 * JSONata's time, depth and sequence guardrails, with RE2 for regexes, no
 * `$eval`, and the run's recorded clock and dice instead of JSONata's own. The
 * answer is the result as JSON text, or the error as plain data.
 */
import jsonata from "jsonata";
import {
  describeJsonataError,
  REMOVED_FUNCTIONS,
  type ExpressionBudget,
} from "./expression-budget.ts";
import { JsonataRe2 } from "./expression-regex.ts";

export interface EvaluationRequest {
  text: string;
  doc: unknown;
  /** Plain values bound as $name. */
  bindings: Record<string, unknown>;
  /** The recorded clock (epoch ms) behind $now() and $millis(), when the expression uses them. */
  clock?: number | undefined;
  /** The recorded draw behind $random(). */
  random?: number | undefined;
}

export type EvaluationAnswer =
  | { ready: true }
  | { ok: true; json: string | undefined }
  | { ok: false; limit?: "time" | "depth" | "sequence" | "result"; message: string; code?: string };

/** Compiled texts kept per thread; a definition's few hundred expressions fit many times over. */
const COMPILED_TEXTS = 2_000;

/** Given by the sandbox as the one argument. */
const budget = JSON.parse(process.argv[2] ?? "null") as ExpressionBudget;
const compiled = new Map<string, jsonata.Expression>();

function compile(text: string): jsonata.Expression {
  let e = compiled.get(text);
  if (e === undefined) {
    e = jsonata(text, {
      // Constructed by JSONata from the parsed literal; RE2 takes what a RegExp would.
      RegexEngine: JsonataRe2 as unknown as RegExpConstructor,
      timeout: budget.timeMs,
      stack: budget.depth,
      sequence: budget.sequence,
    });
    if (compiled.size >= COMPILED_TEXTS) compiled.clear();
    compiled.set(text, e);
  }
  return e;
}

/** Bound over a removed function's name; validation refuses the name, so only an old version gets here. */
const removed = () => {
  // A code JSONata has no message for, so it keeps this one.
  throw Object.assign(new Error("$eval is not available in TaskFlow expressions"), {
    code: "TF1001",
  });
};

async function evaluate(req: EvaluationRequest): Promise<EvaluationAnswer> {
  try {
    const all: Record<string, unknown> = { ...req.bindings };
    for (const f of REMOVED_FUNCTIONS) all[f] = removed;
    if (req.clock !== undefined) {
      const t = req.clock;
      all["now"] = () => new Date(t).toISOString();
      all["millis"] = () => t;
    }
    if (req.random !== undefined) {
      const r = req.random;
      all["random"] = () => r;
    }
    const value: unknown = await compile(req.text).evaluate(req.doc, all);
    const json = value === undefined ? undefined : JSON.stringify(value);
    if (json !== undefined && json.length > budget.resultChars) {
      return {
        ok: false,
        limit: "result",
        message: `the expression's result is ${json.length} characters of JSON, more than the ${budget.resultChars} allowed`,
      };
    }
    return { ok: true, json };
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    const limit =
      code === "D1012"
        ? "time"
        : code === "D1011"
          ? "depth"
          : code === "D2015"
            ? "sequence"
            : undefined;
    const { message } = describeJsonataError(e);
    return {
      ok: false,
      message,
      ...(limit ? { limit } : {}),
      ...(typeof code === "string" ? { code } : {}),
    };
  }
}

process.on("message", (req: EvaluationRequest) => {
  void evaluate(req).then((a) => process.send?.(a));
});
// The engine's process is gone (kill -9 too): nothing is left to answer.
process.on("disconnect", () => process.exit(0));
process.send?.({ ready: true });
