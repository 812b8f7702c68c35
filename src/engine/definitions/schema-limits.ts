/**
 * What a tenant-supplied JSON Schema may cost, measured on its JSON before
 * anything compiles it: Ajv compiles on the event loop, so a schema it takes
 * seconds to compile (a 491 KB nest of `anyOf`, 6,000 properties with a
 * `pattern`) blocks every other request, and a schema that refers to itself
 * without reading deeper into the value (`$dynamicRef` to its own anchor)
 * recurses until the stack overflows on every value checked. Each limit is
 * refused with a finding naming it, so a definition is refused at validate
 * time with a 400 instead.
 *
 * The limits bound both costs that grow with the schema: compiling (linear
 * in its subschemas and their keywords: maxCost) and checking a value (linear in
 * the subschemas with every `$ref` unfolded, which is why references may not
 * form a cycle and their unfolding is capped too: `a = anyOf[b, b]`,
 * `b = anyOf[c, c]`, … doubles at each step).
 */
import type { FieldError } from "../../domain/errors.ts";
import { isRecord, pointer } from "./json-pointer.ts";
import { SCHEMA_LIMITS } from "./schema-limit-values.ts";
import { Unfolding } from "./schema-unfolding.ts";
import { Walk } from "./schema-walk.ts";

export { SCHEMA_LIMITS } from "./schema-limit-values.ts";

/** Findings about `schema` against the limits, pointers under `at`; empty when within them. */
export function schemaLimitErrors(schema: unknown, at: string): FieldError[] {
  return measureSchema(schema, at).errors;
}

/** The limits' findings, and the schema's compile cost (0 when it is refused). */
export function measureSchema(schema: unknown, at: string): Measure {
  if (typeof schema === "boolean") return { errors: [], cost: 1, levels: [1] };
  const errors = (found: FieldError[]): Measure => ({ errors: found, cost: 0, levels: [] });
  // First: JSON.stringify recurses, and overflows the stack some thousands of levels down.
  const deepest = depthOver(schema, SCHEMA_LIMITS.maxDepth, at);
  if (deepest !== undefined) {
    return errors([
      {
        pointer: deepest,
        reason: `nests deeper than the ${SCHEMA_LIMITS.maxDepth} levels a JSON Schema may have`,
      },
    ]);
  }
  const text = JSON.stringify(schema);
  if (text.length > SCHEMA_LIMITS.maxBytes) {
    return errors([
      {
        pointer: at,
        reason: `is a JSON Schema of ${text.length} characters, more than the ${SCHEMA_LIMITS.maxBytes} allowed`,
      },
    ]);
  }
  if (!isRecord(schema)) return { errors: [], cost: 1, levels: [1] };
  const walk = new Walk();
  const root = walk.node(schema, at, undefined, 0);
  if (walk.count > SCHEMA_LIMITS.maxSubschemas) {
    return errors([
      {
        pointer: at,
        reason: `has ${walk.count} subschemas, more than the ${SCHEMA_LIMITS.maxSubschemas} a JSON Schema may have`,
      },
    ]);
  }
  if (walk.cost > SCHEMA_LIMITS.maxCost) {
    return errors([
      {
        pointer: at,
        reason: `has a compile cost of ${walk.cost} (subschemas, keywords, enum values and required names), more than the ${SCHEMA_LIMITS.maxCost} a JSON Schema may have`,
      },
    ]);
  }
  const patterns = walk.patternErrors();
  if (patterns.length > 0) return errors(patterns);
  const unfolding = new Unfolding(walk);
  const found = unfolding.errorsFrom(root, at);
  return found.length > 0
    ? errors(found)
    : { errors: [], cost: walk.cost, levels: unfolding.levels(root) };
}

export interface Measure {
  errors: FieldError[];
  /** The compile cost (SCHEMA_LIMITS.maxCost); 0 when the schema is refused. */
  cost: number;
  /**
   * The check cost per depth of the value: at [d], the subschemas (1 each)
   * and keywords, references unfolded, that may apply to a value nested d
   * levels down. A value node meets at most these, so the nodes at each
   * depth times its cost bound the work of checking (value-check.ts).
   * Empty when the schema is refused.
   */
  levels: readonly number[];
}

/** The pointer of the first value nested deeper than `max`, if any. */
function depthOver(value: unknown, max: number, at: string): string | undefined {
  const stack: { v: unknown; at: string; depth: number }[] = [{ v: value, at, depth: 0 }];
  while (stack.length > 0) {
    const { v, at: here, depth } = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth >= max) return here;
    const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
    for (const [k, x] of entries) stack.push({ v: x, at: pointer(here, k), depth: depth + 1 });
  }
  return undefined;
}
