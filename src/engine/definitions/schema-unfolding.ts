/**
 * A schema's size with every `$ref` and `$dynamicRef` replaced by its target
 * (schema-limits.ts): what checking a value costs, bounded because a reference
 * may not form a cycle and the unfolding is capped.
 */
import type { FieldError } from "../../domain/errors.ts";
import { isRecord, pointer } from "./json-pointer.ts";
import { SCHEMA_LIMITS } from "./schema-limit-values.ts";
import type { Node, Walk } from "./schema-walk.ts";

/**
 * Every subschema's size with its references replaced by their targets,
 * each computed once; a reference back to a subschema still being unfolded
 * is a cycle.
 */
export class Unfolding {
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
