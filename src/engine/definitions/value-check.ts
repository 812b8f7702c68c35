/**
 * A value checked against a tenant's JSON Schema, bounded in time and
 * memory whatever the value: run start vars (over REST, by a hook, as a
 * sub-process's child) and a task's completion. Checking is synchronous, on
 * the event loop, and its cost grows with the value times the schema — 10,000
 * items against `items: { anyOf: [300 branches] }` took 2 s and built 3
 * million findings. So, before Ajv runs:
 *
 * - the work is estimated: each node of the value (object, array, scalar)
 *   counts 1 plus the check cost of the subschemas that may apply at its depth
 *   (Measure.levels), an upper bound of the subschemas and keywords Ajv
 *   evaluates; past VALUE_LIMITS.maxWork the value is refused (413 TooLarge)
 *   naming the limit, before anything is checked;
 * - a value whose work may build more than a few thousand findings is checked
 *   by a check that stops at its first finding, and only a small one by the
 *   check that collects them all; either way at most maxFindings are listed.
 */
import { type FieldError, taskflowError } from "../../domain/errors.ts";
import { firstFindingCheck, type CompiledSchema } from "./schema-compiler.ts";

export const VALUE_LIMITS = {
  /**
   * Work of one check (valueWork). The slowest value found just under it —
   * 2,483 items each matching only the last of 300 anyOf branches — took
   * 0.23–0.28 s on two cores at a load average of 2 (the same work through
   * 100 branches, 0.02–0.16 s). A 1 MB list of 4-field records against an
   * items schema of those fields is 900,000; 1 MB of numbers against
   * `items: {type}` 1.2 million; a 20-field form 1,225.
   */
  maxWork: 1_500_000,
  /**
   * Work up to which every finding is collected (allErrors): each keyword
   * evaluated adds at most one, so this bounds them; a larger value that
   * fails reports its first finding.
   */
  listAllWork: 20_000,
  /** Findings listed at most; the last one says how many more there were. */
  maxFindings: 100,
} as const;

/**
 * The estimated work of checking `value` (see the top of the file), counted
 * until it passes `stopAbove`: a value far too large costs no more to refuse
 * than one just too large.
 */
export function valueWork(
  levels: readonly number[],
  value: unknown,
  stopAbove: number = VALUE_LIMITS.maxWork,
): number {
  let work = 0;
  // Iterative: a value nested thousands deep must not overflow the stack here.
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  while (stack.length > 0) {
    const v = stack.pop();
    const depth = depths.pop()!;
    work += 1 + (levels[depth] ?? 0);
    if (work > stopAbove) return work;
    if (typeof v !== "object" || v === null) continue;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      stack.push(x);
      depths.push(depth + 1);
    }
  }
  return work;
}

/**
 * The findings of `value` against the compiled schema, pointers under `at`
 * (e.g. "/vars"); empty when it matches. Throws TooLarge when the work is
 * past the limit; `what` names the value in that message ("the vars of 'x'").
 */
export function valueFindings(
  compiled: CompiledSchema,
  value: unknown,
  at: string,
  what: string,
): FieldError[] {
  const work = valueWork(compiled.levels, value);
  if (work > VALUE_LIMITS.maxWork) {
    throw taskflowError("ValueTooCostly", { what, maxWork: VALUE_LIMITS.maxWork });
  }
  const all = work <= VALUE_LIMITS.listAllWork;
  const check = all ? compiled.check : firstFindingCheck(compiled);
  if (check(value)) return [];
  const errors = check.errors ?? [];
  const out: FieldError[] = errors
    .slice(0, VALUE_LIMITS.maxFindings)
    .map((e) => ({ pointer: at + e.instancePath, reason: e.message ?? e.keyword }));
  if (!all) {
    // Ajv's first finding may come with its alternatives' (each anyOf branch's), capped too.
    out.push({
      pointer: at,
      reason: "was checked only up to its first finding: it is too large to list them all",
    });
  } else if (errors.length > VALUE_LIMITS.maxFindings) {
    out.push({
      pointer: at,
      reason: `has ${errors.length - VALUE_LIMITS.maxFindings} more findings, not listed (the first ${VALUE_LIMITS.maxFindings} are)`,
    });
  }
  return out;
}
