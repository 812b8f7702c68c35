/**
 * The one compiler of tenant-supplied JSON Schemas — a definition's `vars`
 * and each userTask's `form`, at validate and publish time, when a run
 * starts (over REST or by a hook) and when a task completes. Each
 * schema is measured against SCHEMA_LIMITS before anything compiles it,
 * checked against the draft 2020-12 meta-schema, then compiled with its
 * patterns and formats on RE2 and a linear `uniqueItems` (unique-items.ts);
 * the outcome, a check or the findings that refused it, is cached by the
 * schema's JSON text, so a form compiles once however many tasks and
 * versions carry it, and a published schema that no longer compiles
 * (refused by a newer rule) is refused at once each time.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { LRUCache } from "lru-cache";
import type { FieldError } from "../../domain/errors.ts";
import { linearRegExpEngine } from "./linear-regexp.ts";
import { addSchemaFormats } from "./schema-formats.ts";
import { measureSchema, schemaLimitErrors } from "./schema-limits.ts";
import { linearUniqueItems } from "./unique-items.ts";

export type SchemaOutcome =
  | CompiledSchema
  /** Pointers relative to the schema ("" is the schema itself). */
  | { ok: false; errors: readonly FieldError[] };

/**
 * Outcomes kept, and their schemas' JSON text in all. A form is a few KiB,
 * so a thousand fit; a check's code is many times its text (343 KB for the
 * 20 KB of 499 two-keyword properties), so the text bound is what keeps the
 * cache to tens of MB when the schemas are large.
 */
const CACHED_SCHEMAS = 1_000;
const CACHED_TEXT = 4 * 1024 * 1024;
/**
 * Ajv keeps every pattern and format it ever used in its instance, so the
 * compiling one is replaced after this many compiles; checks compiled by
 * the old one keep working (each holds what it uses).
 */
const COMPILES_PER_INSTANCE = 500;

const outcomes = new LRUCache<string, SchemaOutcome>({
  max: CACHED_SCHEMAS,
  maxSize: CACHED_TEXT,
  sizeCalculation: (_v, text) => Math.max(1, text.length),
});

let meta: Ajv2020 | undefined;
/** One compiling instance per allErrors setting, each with its count of compiles. */
const compilers = new Map<boolean, { ajv: Ajv2020; compiled: number }>();

export const schemaCompileStats = { compiles: 0, hits: 0, compileMs: 0 };

/**
 * Builds the meta-schema's validator now: on a busy machine that blocks for
 * a second or more, which a server must do before it serves, not in the
 * first request.
 */
export function prepareSchemaCompiler(): void {
  metaAjv();
}

/** The schema compiled, or what refuses it; cached by its JSON text. */
export function compileSchema(schema: unknown): SchemaOutcome {
  let text: string;
  try {
    text = JSON.stringify(schema) ?? "undefined";
  } catch {
    // Nested so deep JSON.stringify overflows the stack (only an embedding caller can send
    // one): the depth limit names it.
    const errors = schemaLimitErrors(schema, "");
    return refused(errors.length > 0 ? errors : [{ pointer: "", reason: "nests too deeply" }]);
  }
  const cached = outcomes.get(text);
  if (cached !== undefined) {
    schemaCompileStats.hits += 1;
    return cached;
  }
  const started = performance.now();
  const outcome = compileNow(schema);
  schemaCompileStats.compiles += 1;
  schemaCompileStats.compileMs += performance.now() - started;
  outcomes.set(text, outcome);
  return outcome;
}

/** The findings about `schema` as a JSON Schema, their pointers under `at`. */
export function schemaFindings(schema: unknown, at: string): FieldError[] {
  const outcome = compileSchema(schema);
  if (outcome.ok) return [];
  return outcome.errors.map((e) => ({ pointer: at + e.pointer, reason: e.reason }));
}

function compileNow(schema: unknown): SchemaOutcome {
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null)) {
    return refused([{ pointer: "", reason: "is not a JSON Schema: an object or a boolean" }]);
  }
  const measure = measureSchema(schema, "");
  if (measure.errors.length > 0) return refused(measure.errors);
  const m = metaAjv();
  let valid: boolean;
  try {
    valid = m.validateSchema(schema) as boolean;
  } catch (e) {
    // A `$schema` naming another draft: its meta-schema is not there to check against.
    return refused([
      { pointer: "/$schema", reason: `is not a valid JSON Schema: ${(e as Error).message}` },
    ]);
  }
  if (!valid) {
    const seen = new Set<string>();
    const errors: FieldError[] = [];
    for (const e of m.errors ?? []) {
      // One finding per place: the meta-schema's anyOf alternatives repeat it.
      if (seen.has(e.instancePath)) continue;
      seen.add(e.instancePath);
      errors.push({
        pointer: e.instancePath,
        reason: `is not a valid JSON Schema: ${e.message ?? e.keyword}`,
      });
    }
    return refused(errors);
  }
  const ajv = compilingAjv(true);
  try {
    return { ok: true, check: ajv.compile(schema), levels: measure.levels, schema };
  } catch (e) {
    return refused([
      { pointer: "", reason: `is not a valid JSON Schema: ${(e as Error).message}` },
    ]);
  } finally {
    // Ajv caches by the object; `true` and `false` it refuses to remove (it throws).
    if (typeof schema === "object") ajv.removeSchema(schema);
  }
}

/** A schema that compiled: check values with value-check.ts, which bounds their cost. */
export interface CompiledSchema {
  ok: true;
  /** Collects every finding (allErrors): run only on values whose work bounds their number. */
  check: ValidateFunction;
  /** The check cost per depth of the value (Measure.levels). */
  levels: readonly number[];
  /** What firstFindingCheck compiles, once, when a large value first needs it. */
  schema: object | boolean;
  first?: ValidateFunction;
}

/**
 * The schema compiled to stop at its first finding: a large value that fails
 * is checked with it, so its findings never number millions. Compiled on
 * first need (the schema was measured within the limits, so as quickly as
 * the first compile) and kept with the outcome.
 */
export function firstFindingCheck(compiled: CompiledSchema): ValidateFunction {
  if (compiled.first !== undefined) return compiled.first;
  const ajv = compilingAjv(false);
  try {
    compiled.first = ajv.compile(compiled.schema);
  } finally {
    if (typeof compiled.schema === "object") ajv.removeSchema(compiled.schema);
  }
  return compiled.first;
}

const refused = (errors: readonly FieldError[]): SchemaOutcome => ({ ok: false, errors });

const OPTIONS = {
  // A schema's `$id` stays out of the instance, so two forms may use the same one.
  addUsedSchema: false,
  allErrors: true,
  strict: true,
  // Only unknown keywords are refused; these others are style, and Ajv would log them.
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  // A form refers to nothing outside itself.
  loadSchema: undefined,
  // Ajv's optimising pass doubles the compile time of a wide schema for little gain in checking.
  code: { regExp: linearRegExpEngine, optimize: false },
} as const;

function metaAjv(): Ajv2020 {
  if (meta === undefined) {
    meta = new Ajv2020(OPTIONS);
    addSchemaFormats(meta);
  }
  return meta;
}

/** Without the meta-schema (metaAjv checks against it first), so building one is cheap. */
function compilingAjv(allErrors: boolean): Ajv2020 {
  let c = compilers.get(allErrors);
  if (c === undefined || c.compiled >= COMPILES_PER_INSTANCE) {
    const ajv = new Ajv2020({ ...OPTIONS, allErrors, meta: false, validateSchema: false });
    addSchemaFormats(ajv);
    ajv.removeKeyword("uniqueItems").addKeyword(linearUniqueItems);
    c = { ajv, compiled: 0 };
    compilers.set(allErrors, c);
  }
  c.compiled += 1;
  return c.ajv;
}
