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
import { linearRegExp } from "./linear-regexp.ts";

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
interface Node {
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
interface Resource {
  root: Record<string, unknown>;
  anchors: Map<string, Node>;
}

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

class Walk {
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

/**
 * Every subschema's size with its references replaced by their targets,
 * each computed once; a reference back to a subschema still being unfolded
 * is a cycle.
 */
class Unfolding {
  readonly #sizes = new Map<Node, Unfolded>();
  readonly #open = new Set<Node>();

  constructor(private readonly walk: Walk) {}

  /** Measure.levels of `node` (once errorsFrom found no cycle): its cost per depth of the value. */
  levels(node: Node): number[] {
    const known = this.#levels.get(node);
    if (known !== undefined) return known;
    const out = [1 + Object.keys(node.schema).length];
    const add = (levels: readonly number[], shift: number): void => {
      levels.forEach((c, d) => (out[d + shift] = (out[d + shift] ?? 0) + c));
    };
    for (const child of node.children) {
      if (child.shift !== undefined) add(this.levels(child), child.shift);
    }
    for (const [, targets] of this.#references(node)) {
      for (const t of targets) add(this.levels(t), 0);
    }
    this.#levels.set(node, out);
    return out;
  }

  readonly #levels = new Map<Node, number[]>();

  errorsFrom(root: Node, at: string): FieldError[] {
    try {
      const { patterns } = this.#size(root);
      if (patterns > SCHEMA_LIMITS.maxPatternProperties) {
        return [
          {
            pointer: at,
            reason: `has ${patterns} patternProperties patterns once its references are unfolded, more than the ${SCHEMA_LIMITS.maxPatternProperties} allowed (each is tried on every property name of the value)`,
          },
        ];
      }
      return [];
    } catch (e) {
      if (e instanceof Cycle) {
        return [
          {
            pointer: e.at,
            reason:
              "refers back to a schema that contains it: recursive JSON Schemas are not supported",
          },
        ];
      }
      if (e instanceof TooBig) {
        return [
          {
            pointer: at,
            reason: `has more than ${SCHEMA_LIMITS.maxUnfolded} subschemas once its references are unfolded`,
          },
        ];
      }
      if (e instanceof Unresolved) {
        const reason = e.ref.startsWith("#")
          ? `refers to '${e.ref}', which this schema does not have`
          : `refers to '${e.ref}', outside this schema: only references inside it (#/… or #anchor) are supported`;
        return [{ pointer: e.at, reason }];
      }
      throw e;
    }
  }

  #size(node: Node): Unfolded {
    const known = this.#sizes.get(node);
    if (known !== undefined) return known;
    this.#open.add(node);
    const own = node.schema["patternProperties"];
    const out: Unfolded = { size: 1, patterns: isRecord(own) ? Object.keys(own).length : 0 };
    const add = (u: Unfolded): void => {
      out.size += u.size;
      out.patterns += u.patterns;
    };
    for (const child of node.children) add(this.#size(child));
    for (const [keyword, targets] of this.#references(node)) {
      for (const t of targets) {
        if (this.#open.has(t)) throw new Cycle(pointer(node.at, keyword));
        add(this.#size(t));
      }
    }
    if (out.size > SCHEMA_LIMITS.maxUnfolded) throw new TooBig(out.size);
    this.#open.delete(node);
    this.#sizes.set(node, out);
    return out;
  }

  #references(node: Node): [string, Node[]][] {
    const out: [string, Node[]][] = [];
    const ref = node.schema["$ref"];
    if (typeof ref === "string") out.push(["$ref", [this.#resolve(ref, node, "$ref")]]);
    const dynamic = node.schema["$dynamicRef"];
    if (typeof dynamic === "string") {
      const anchor = dynamic.startsWith("#") ? dynamic.slice(1) : undefined;
      const dynamicTargets =
        anchor !== undefined && !anchor.startsWith("/")
          ? this.walk.dynamicAnchors.get(anchor)
          : undefined;
      out.push(["$dynamicRef", dynamicTargets ?? [this.#resolve(dynamic, node, "$dynamicRef")]]);
    }
    return out;
  }

  #resolve(ref: string, node: Node, keyword: string): Node {
    const at = pointer(node.at, keyword);
    if (!ref.startsWith("#")) throw new Unresolved(ref, at);
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      throw new Unresolved(ref, at);
    }
    const resource = node.resource;
    if (fragment === "" || fragment.startsWith("/")) {
      let target: unknown = resource.root;
      for (const token of fragment.split("/").slice(1)) {
        const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
        target = Array.isArray(target)
          ? target[Number(key)]
          : isRecord(target)
            ? target[key]
            : undefined;
      }
      const found = isRecord(target) ? this.walk.nodes.get(target) : undefined;
      if (found === undefined) throw new Unresolved(ref, at);
      return found;
    }
    const anchored = resource.anchors.get(fragment);
    if (anchored === undefined) throw new Unresolved(ref, at);
    return anchored;
  }
}

/** A subschema with its references unfolded: its subschemas, and its patternProperties keys. */
interface Unfolded {
  size: number;
  patterns: number;
}

/** Why an unfolding stopped: thrown from deep in the recursion, caught at its top. */
class Cycle extends Error {
  constructor(readonly at: string) {
    super("cycle");
  }
}
class TooBig extends Error {
  constructor(readonly size: number) {
    super("too big");
  }
}
class Unresolved extends Error {
  constructor(
    readonly ref: string,
    readonly at: string,
  ) {
    super("unresolved");
  }
}
