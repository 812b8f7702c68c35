/**
 * Regular expressions of tenant-supplied JSON Schemas (`pattern`,
 * `patternProperties`, the `regex` format) run on RE2, whose matching time is
 * linear in the input: `^(a+)+$` against 30 characters takes seconds on a
 * backtracking engine (each character doubles it), microseconds here. RE2 has
 * no backreferences and no lookaround; a pattern that uses them does not
 * compile, and the schema is refused at validate time instead of matching
 * differently.
 */
import type { RegExpEngine } from "ajv/dist/types/index.js";
import { LRUCache } from "lru-cache";
import { RE2 } from "re2-wasm";

/**
 * RE2 keeps each compiled program in the WebAssembly heap, which the garbage
 * collector does not see: without this, every pattern ever compiled (one per
 * validate request with a new pattern) would stay there.
 */
const programs = new FinalizationRegistry<{ delete(): void }>((program) => program.delete());

/**
 * Compiling a pattern costs a tenth of a millisecond, and a schema's are
 * compiled three times (the limits check, the meta-schema's `regex` format,
 * Ajv): kept by source. Only `test` is used, which keeps no state without
 * the "g" or "y" flag.
 */
const compiled = new LRUCache<string, RE2 | Error>({ max: 10_000 });

/** RE2 with the flags a JavaScript pattern would have; throws as `new RegExp` does. */
export function linearRegExp(source: string, flags = ""): RE2 {
  // RE2 only works in unicode mode, which JSON Schema's patterns are (ECMA-262 with "u").
  const f = flags.includes("u") ? flags : `${flags}u`;
  const key = `${f}/${source}`;
  let re = compiled.get(key);
  if (re === undefined) {
    try {
      re = new RE2(source, f);
      const program = (re as unknown as { wrapper?: { delete(): void } }).wrapper;
      if (program !== undefined) programs.register(re, program);
    } catch (e) {
      re = e instanceof Error ? e : new Error(String(e));
    }
    compiled.set(key, re);
  }
  if (re instanceof Error) throw re;
  return re;
}

/** Ajv's `code.regExp`: the engine of `pattern` and `patternProperties`. */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (source: string, flags: string) => linearRegExp(source, flags),
  // Only read when Ajv writes standalone code, which the engine never does.
  { code: "linearRegExp" },
);

/** True when `source` compiles as a pattern of this engine (the `regex` format). */
export function isLinearRegExp(source: string): boolean {
  try {
    linearRegExp(source);
    return true;
  } catch {
    return false;
  }
}
