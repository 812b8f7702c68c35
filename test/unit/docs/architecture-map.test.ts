/**
 * The maps follow the code (issue 22, item 8): docs/architecture.md and the
 * README's layout section had drifted (a ports table with 4 of ~16 ports, a
 * tree without half the folders). This fails when a folder of src/ (two
 * levels deep) is missing from a tree, when a `*-port.ts` file or an error
 * reason is missing from the architecture page, or when either names a src/
 * path that does not exist. Files are only read, so it sits in the unit set.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ERROR_REASONS } from "../../../src/domain/error-reasons.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const read = (file: string): string => readFileSync(join(root, file), "utf8");

/** Every folder under src/, one or two levels deep, as `src/a` and `src/a/b`. */
function srcFolders(): string[] {
  return readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(root.length).split("\\").join("/"))
    .filter((p) => p.split("/").length <= 3)
    .sort();
}

/**
 * The folders a drawn tree names: the first fenced block opening with `src/`
 * after `heading`, two spaces of indent per level (the layout both files use).
 */
function treeFolders(markdown: string, heading: string): string[] {
  const after = markdown.slice(markdown.indexOf(heading));
  const block = /```\n(src\/\n[\s\S]*?)```/.exec(after)?.[1];
  assert.ok(block, `no tree starting with src/ under ${heading}`);
  const stack: string[] = [];
  const folders: string[] = [];
  for (const line of block.split("\n")) {
    const m = /^( *)([\w.-]+)\/(?:\s|$)/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? "").length / 2;
    stack.length = depth;
    stack.push(m[2] ?? "");
    folders.push(stack.join("/"));
  }
  return folders.filter((f) => f !== "src");
}

/** `src/...` paths written in backticks, without a walk's `:FUNCTION:PARAM` or a trailing `/`. */
function srcPathsNamed(markdown: string): string[] {
  return [...markdown.matchAll(/`(src\/[^`\s]*)`/g)].map((m) =>
    (m[1] ?? "").replace(/:.*$/, "").replace(/\/$/, ""),
  );
}

const portFiles = (): string[] =>
  readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith("-port.ts"))
    .map((p) => `src/${p.split("\\").join("/")}`)
    .sort();

for (const [file, heading] of [
  ["docs/architecture.md", "## Layers"],
  ["README.md", "## Layout"],
] as const) {
  describe(`${file} follows the code`, () => {
    const text = read(file);
    const drawn = treeFolders(text, heading);

    it("draws every folder of src/, two levels deep", () => {
      const missing = srcFolders().filter((f) => !drawn.includes(f));
      assert.deepEqual(missing, [], `folders missing from the tree under ${heading}`);
    });

    it("draws and names only src/ paths that exist", () => {
      const stale = [...drawn, ...srcPathsNamed(text)].filter((p) => !existsSync(join(root, p)));
      assert.deepEqual(stale, [], "paths that do not exist");
    });
  });
}

describe("docs/architecture.md lists", () => {
  const text = read("docs/architecture.md");

  it("every *-port.ts file", () => {
    const named = new Set(srcPathsNamed(text));
    assert.deepEqual(
      portFiles().filter((p) => !named.has(p)),
      [],
    );
  });

  it("every error reason of the catalogue", () => {
    assert.deepEqual(
      Object.keys(ERROR_REASONS).filter((r) => !text.includes(`\`${r}\``)),
      [],
    );
  });
});
