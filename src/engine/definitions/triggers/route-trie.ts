/**
 * A segment trie of path templates: each node has literal children by
 * segment text and at most one parameter child (`{name}`; names differ per
 * template, so each route keeps its own names and the node only stands for
 * "any one segment"). Matching walks one node per segment, trying the literal
 * child before the parameter child and backing off to the parameter only when
 * the literal branch finds nothing below — so `/orders/new` beats
 * `/orders/{id}`, and `/orders/new/items` still reaches `/orders/{id}/items`
 * when no literal route goes that deep.
 *
 * A lookup costs one Map get per segment (plus backtracking over literal
 * branches that end early): independent of how many routes there are.
 */

/** Where a template's values sit: what the route stores besides its segments. */
export interface TrieRoute<V> {
  /** The template's parameter names, in segment order. */
  readonly paramNames: readonly string[];
  readonly value: V;
}

export interface TrieMatch<V> {
  readonly route: TrieRoute<V>;
  /** The parameters' values (decoded segments), in segment order. */
  readonly paramValues: readonly string[];
}

class TrieNode<V> {
  readonly literals = new Map<string, TrieNode<V>>();
  param: TrieNode<V> | undefined;
  /** Method → route, for the templates that end here. */
  readonly routes = new Map<string, TrieRoute<V>>();
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The segments of a template or a request path: "/" is none; a trailing slash is dropped. */
export function segmentsOf(path: string): string[] {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? [] : trimmed.slice(1).split("/");
}

export class RouteTrie<V> {
  private readonly root = new TrieNode<V>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /**
   * Adds a template for a method; false (nothing changed) when the same
   * method and shape is already there — the first one added keeps it.
   */
  add(method: string, template: string, value: V): boolean {
    let node = this.root;
    const paramNames: string[] = [];
    for (const segment of segmentsOf(template)) {
      const param = PARAM.exec(segment);
      if (param) {
        paramNames.push(param[1] ?? "");
        node = node.param ??= new TrieNode<V>();
      } else {
        let next = node.literals.get(segment);
        if (next === undefined) node.literals.set(segment, (next = new TrieNode<V>()));
        node = next;
      }
    }
    if (node.routes.has(method)) return false;
    node.routes.set(method, { paramNames, value });
    this.count++;
    return true;
  }

  /**
   * The route of `method` the (decoded) segments reach, literal segments
   * tried first; undefined when none. A path that has a literal route of
   * another method still reaches a parameter route of this one.
   */
  match(method: string, segments: readonly string[]): TrieMatch<V> | undefined {
    const values: string[] = [];
    const node = walk(this.root, segments, 0, values, (n) => n.routes.has(method));
    const route = node?.routes.get(method);
    return route === undefined ? undefined : { route, paramValues: values };
  }

  /** Every method some route of the path has (for a 405's Allow); empty when none. */
  methodsAt(segments: readonly string[]): string[] {
    const methods = new Set<string>();
    walk(this.root, segments, 0, [], (n) => {
      for (const m of n.routes.keys()) methods.add(m);
      return false;
    });
    return [...methods].sort();
  }
}

/** Depth first, literal child before parameter child: the first node at the path's end that `accept`s. */
function walk<V>(
  node: TrieNode<V>,
  segments: readonly string[],
  i: number,
  values: string[],
  accept: (n: TrieNode<V>) => boolean,
): TrieNode<V> | undefined {
  if (i === segments.length) return accept(node) ? node : undefined;
  const segment = segments[i] as string;
  const literal = node.literals.get(segment);
  if (literal !== undefined) {
    const found = walk(literal, segments, i + 1, values, accept);
    if (found !== undefined) return found;
  }
  if (node.param === undefined || segment === "") return undefined;
  values.push(segment);
  const found = walk(node.param, segments, i + 1, values, accept);
  if (found === undefined) values.pop();
  return found;
}
