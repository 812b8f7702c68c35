/**
 * The declaration files a published entry reaches: a walk of the `.d.ts`
 * import graph from one file, following every relative specifier (`from`,
 * `import("…")`, `/// <reference path>`) and noting every bare one (a
 * package the types name). What a consumer's compiler loads when it reads
 * our types is exactly this graph, so a type that is reachable here is part
 * of the public API whether index.ts meant it or not.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export interface DeclarationGraph {
  /** Every declaration file reached, relative to the walk's root directory, sorted. */
  readonly files: string[];
  /** Each bare specifier, with the declaration files (relative) that name it. */
  readonly packages: Map<string, string[]>;
}

// `from "x"` (import/export … from), `import("x")`, `import x = require("x")`, `/// <reference …="x" />`.
const SPECIFIERS = [
  /\bfrom\s+(["'])([^"']+)\1/g,
  /\bimport\s*\(\s*(["'])([^"']+)\1\s*\)/g,
  /\brequire\s*\(\s*(["'])([^"']+)\1\s*\)/g,
  /^\s*import\s+(["'])([^"']+)\1/gm,
  /\/\/\/\s*<reference\s+(?:path|types)=(["'])([^"']+)\1/g,
];

/** The package a bare specifier names: `@scope/name` or `name` (its subpath dropped). */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

export function walkDeclarations(entry: string, root: string): DeclarationGraph {
  const seen = new Set<string>();
  const packages = new Map<string, string[]>();
  const queue = [resolve(entry)];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = withoutComments(readFileSync(file, "utf8"));
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[2] ?? "";
        if (specifier.startsWith(".")) queue.push(declarationOf(dirname(file), specifier, file));
        else if (!specifier.startsWith("node:")) {
          const name = packageOf(specifier);
          const from = packages.get(name) ?? [];
          from.push(relative(root, file));
          packages.set(name, from);
        }
      }
    }
  }
  return { files: [...seen].map((f) => relative(root, f)).sort(), packages };
}

/** The text without its doc and line comments (their examples import things), keeping `///` directives. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/(?!\/).*$/gm, "");
}

/** `./x.js` (or `./x.ts`, `./x`, `./dir`) next to `from`: the declaration file tsc wrote for it. */
function declarationOf(dir: string, specifier: string, from: string): string {
  const base = join(dir, specifier.replace(/\.(d\.ts|[cm]?[jt]s)$/, ""));
  for (const candidate of [`${base}.d.ts`, join(base, "index.d.ts")]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${from}: no declaration file for "${specifier}"`);
}
