/** The limits of a tenant-supplied JSON Schema (schema-limits.ts measures them). */
export const SCHEMA_LIMITS = {
  /** Characters of the schema's JSON text. */
  maxBytes: 128 * 1024,
  /**
   * Nesting of JSON values (a subschema in `properties` is two levels down):
   * 16 levels of subschemas, more than a form has; Ajv compiles recursively.
   */
  maxDepth: 32,
  /** Subschemas, the schema itself included. */
  maxSubschemas: 1_000,
  /**
   * The compile cost: each subschema counts 1, plus 1 per keyword, plus its
   * `enum` values and `required` names up to 200 each (Ajv writes code for
   * each of those; past 200 it loops). 1,500 took 0.4–0.6 s to compile on
   * two cores at a load average of 17 (500 properties of two keywords).
   */
  maxCost: 1_500,
  /** The compile cost of a definition's schemas together (each distinct schema counted once). */
  maxDefinitionCost: 1_500,
  /** Subschemas with each `$ref` and `$dynamicRef` replaced by its target. */
  maxUnfolded: 10_000,
  /**
   * `patternProperties` patterns, with every reference unfolded: each is
   * tried on each property name of the value, at 1.7 µs a try on RE2, and a
   * 1 MB body holds a hundred thousand names (100 patterns took 8.3 s on
   * 50,000). 20 of them on 100,000 names is 3 s at most.
   */
  maxPatternProperties: 20,
  /** Characters of one `pattern` or `patternProperties` key. */
  maxPatternLength: 1_000,
} as const;
