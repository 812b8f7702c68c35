/**
 * One pass over a JSON Schema's subschemas (schema-limits.ts): how many there
 * are and what compiling them costs, their resources and anchors (what
 * references resolve to, schema-unfolding.ts), and their patterns, checked
 * against the limits once counted.
 */
import type { FieldError } from "../../domain/errors.ts";
import { isRecord, pointer } from "./json-pointer.ts";
import { linearRegExp } from "./linear-regexp.ts";
import { SCHEMA_LIMITS } from "./schema-limit-values.ts";

/** Ajv writes code for each `enum` value and `required` name up to this many, then a loop. */
const AJV_LOOP_AFTER = 200;

/** Keywords whose value is a schema. */
const SCHEMA_VALUED = [
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
  "items",
] as const;
/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAYS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"] as const;
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

/** Where each schema-valued keyword applies its subschemas: see Node.shift. */
const SHIFT: Partial<Record<string, 0 | 1>> = {
  allOf: 0,
  anyOf: 0,
  oneOf: 0,
  not: 0,
  if: 0,
  then: 0,
  else: 0,
  dependentSchemas: 0,
  properties: 1,
  patternProperties: 1,
  additionalProperties: 1,
  unevaluatedProperties: 1,
  // Applied to each property name, a value one level down as far as cost goes.
  propertyNames: 1,
  items: 1,
  prefixItems: 1,
  additionalItems: 1,
  unevaluatedItems: 1,
  contains: 1,
  contentSchema: 1,
};

/** A subschema and where it is: its JSON pointer, and the resource (`$id`) it belongs to. */
export interface Node {
  schema: Record<string, unknown>;
  at: string;
  resource: Resource;
  children: Node[];
  /**
   * Levels of the value below its parent's that it applies to: 0 in place
   * (allOf, not, if…), 1 one level down (properties, items…); undefined
   * when it applies only where referred to ($defs).
   */
  shift: 0 | 1 | undefined;
}

/** A schema resource: the root of the schema, or a subschema with an `$id`. */
export interface Resource {
  root: Record<string, unknown>;
  anchors: Map<string, Node>;
}

export class Walk {
  count = 0;
  cost = 0;
  readonly nodes = new Map<Record<string, unknown>, Node>();
  /** `$dynamicAnchor` names: a `$dynamicRef` may land on any of them (its scope is the caller's). */
  readonly dynamicAnchors = new Map<string, Node[]>();

  node(
    schema: Record<string, unknown>,
    at: string,
    parent: Resource | undefined,
    shift: 0 | 1 | undefined,
  ): Node {
    this.count += 1;
    this.cost += 1 + Object.keys(schema).length;
    for (const k of ["enum", "required"]) {
      const list = schema[k];
      if (Array.isArray(list)) this.cost += Math.min(list.length, AJV_LOOP_AFTER);
    }
    const resource: Resource =
      parent === undefined || typeof schema["$id"] === "string"
        ? { root: schema, anchors: new Map() }
        : parent;
    const node: Node = { schema, at, resource, children: [], shift };
    this.nodes.set(schema, node);
    if (typeof schema["$anchor"] === "string") resource.anchors.set(schema["$anchor"], node);
    const dynamic = schema["$dynamicAnchor"];
    if (typeof dynamic === "string") {
      resource.anchors.set(dynamic, node);
      this.dynamicAnchors.set(dynamic, [...(this.dynamicAnchors.get(dynamic) ?? []), node]);
    }
    this.patterns(schema, at);
    const add = (sub: unknown, subAt: string, k: string): void => {
      if (isRecord(sub)) node.children.push(this.node(sub, subAt, resource, SHIFT[k]));
    };
    for (const k of SCHEMA_VALUED) add(schema[k], pointer(at, k), k);
    for (const k of SCHEMA_ARRAYS) {
      const list = schema[k];
      if (Array.isArray(list)) list.forEach((s, i) => add(s, pointer(at, k, i), k));
    }
    for (const k of SCHEMA_MAPS) {
      const map = schema[k];
      if (isRecord(map)) {
        for (const [name, s] of Object.entries(map)) add(s, pointer(at, k, name), k);
      }
    }
    return node;
  }

  /** `pattern` and `patternProperties` sources, with where they are; checked once counted. */
  readonly sources: [string, string][] = [];

  patterns(schema: Record<string, unknown>, at: string): void {
    if (typeof schema["pattern"] === "string") {
      this.sources.push([schema["pattern"], pointer(at, "pattern")]);
    }
    const map = schema["patternProperties"];
    if (isRecord(map)) {
      for (const k of Object.keys(map)) this.sources.push([k, pointer(at, "patternProperties", k)]);
    }
  }

  /** Each pattern within its length and one RE2 runs (compiling each costs 0.1 ms). */
  patternErrors(): FieldError[] {
    const errors: FieldError[] = [];
    for (const [source, where] of this.sources) {
      if (source.length > SCHEMA_LIMITS.maxPatternLength) {
        errors.push({
          pointer: where,
          reason: `is a pattern of ${source.length} characters, more than the ${SCHEMA_LIMITS.maxPatternLength} allowed`,
        });
        continue;
      }
      try {
        linearRegExp(source);
      } catch (e) {
        errors.push({
          pointer: where,
          reason: `is not a pattern the engine runs (RE2: no lookaround, no backreferences): ${(e as Error).message}`,
        });
      }
    }
    return errors;
  }
}
