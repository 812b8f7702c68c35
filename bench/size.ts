/**
 * `npm run bench -- size [dir]`: how big the source files and functions are —
 * file count, median / p90 / max lines per file and per function — so a
 * restructuring can quote its before and after. Functions are counted with the
 * TypeScript parser (declarations, methods, arrows and function expressions);
 * a nested function counts on its own and inside its parent.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { printTable, writeResults } from "./lib/results.ts";
import { percentile } from "./lib/stats.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function isFunction(node: ts.Node): boolean {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node)
  );
}

interface FunctionSize {
  /** file:line of the function's first line. */
  at: string;
  lines: number;
}

function functionLengths(file: string, text: string, dir: string): FunctionSize[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sizes: FunctionSize[] = [];
  const lineOf = (pos: number) => src.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      const first = lineOf(node.getStart(src));
      sizes.push({
        at: `${relative(dir, file)}:${first + 1}`,
        lines: lineOf(node.getEnd()) - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return sizes;
}

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    median: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    max: sorted.at(-1) ?? 0,
  };
};

export async function run(args: string[]): Promise<void> {
  const dir = args[0] ?? "src";
  const files = sourceFiles(dir).sort();
  const perFile: { file: string; lines: number }[] = [];
  const perFunction: FunctionSize[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    perFile.push({ file: relative(dir, file), lines: text.split("\n").length - 1 });
    perFunction.push(...functionLengths(file, text, dir));
  }
  const fileStats = stats(perFile.map((f) => f.lines));
  const fnStats = stats(perFunction.map((f) => f.lines));
  printTable([
    { what: "lines per file", ...fileStats },
    { what: "lines per function", ...fnStats },
  ]);
  const largest = [...perFile].sort((a, b) => b.lines - a.lines).slice(0, 5);
  console.log("largest files:", largest.map((f) => `${f.file} (${f.lines})`).join(", "));
  const longest = [...perFunction].sort((a, b) => b.lines - a.lines).slice(0, 5);
  console.log("longest functions:", longest.map((f) => `${f.at} (${f.lines})`).join(", "));
  const out = writeResults("size", {
    dir,
    files: fileStats,
    functions: fnStats,
    largest,
    longest,
  });
  console.log(`wrote ${out}`);
  return Promise.resolve();
}
