/**
 * The engine's ports are found by their file names: every interface an
 * adapter class implements is declared in a `*-port.ts` file of src/engine,
 * and every such file opens with a glossary of its terms (issue 22: ports
 * had been spread over ~15 files in three naming styles, most without one).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const src = fileURLToPath(new URL("../../../src/", import.meta.url));

const tsFiles = (dir: string): string[] =>
  readdirSync(join(src, dir), { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".ts"))
    .map((p) => join(src, dir, p));

/** The names a file imports, each with the absolute path it is imported from. */
function importsOf(file: string): Map<string, string> {
  const names = new Map<string, string>();
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(\.[^"]+)"/g)) {
    for (const part of (m[1] ?? "").split(",")) {
      const name = part
        .replace(/^\s*type\s+/, "")
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.set(name, resolve(dirname(file), m[2] ?? ""));
    }
  }
  return names;
}

describe("port files", () => {
  it("every interface an adapter implements comes from an engine *-port.ts file", () => {
    const misplaced: string[] = [];
    let checked = 0;
    for (const file of tsFiles("adapters")) {
      const imports = importsOf(file);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bimplements\s+([\w\s,<>]+?)\s*\{/g)) {
        for (const name of (m[1] ?? "").split(",").map((n) => n.trim().replace(/<.*$/, ""))) {
          const from = imports.get(name);
          if (from === undefined || !from.includes("/src/engine/")) continue;
          checked++;
          if (!from.endsWith("-port.ts")) misplaced.push(`${name} (${from.slice(src.length)})`);
        }
      }
    }
    assert.ok(checked >= 5, `only ${checked} engine interfaces found implemented`);
    assert.deepEqual(misplaced, []);
  });

  it("every *-port.ts file opens with a glossary of its terms", () => {
    const ports = tsFiles("engine").filter((f) => f.endsWith("-port.ts"));
    assert.ok(ports.length >= 15, `only ${ports.length} port files`);
    const without = ports.filter((f) => {
      const header = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(f, "utf8"))?.[1] ?? "";
      return !/\n \* Glossary\n(?: \*\n)? \* - [\w ,/-]+:/.test(header);
    });
    assert.deepEqual(
      without.map((f) => f.slice(src.length)),
      [],
    );
  });
});
