/**
 * The dependency rule of docs/architecture.md, held by lint/boundaries.js, can
 * fail: for every area of src/ (and the Console's pages) one import it must not
 * make is planted into a file of that area and linted with exactly the
 * boundary rules, and one import it may make is linted clean. A rule that
 * stopped matching (a moved folder, a typo in a zone) fails here, not silently.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
// @ts-expect-error -- a plain .mjs module of the lint config, without types
import { AREAS, boundaries } from "../../lint/boundaries.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ["**/*.ts", "**/*.tsx"],
      languageOptions: { parser: tseslint.parser },
      plugins: { "import-x": importX },
      settings: {
        "import-x/extensions": [".ts", ".tsx", ".js"],
        "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".js"] })],
      },
    },
    ...(boundaries as object[]),
  ],
});

/** One import statement (built, not written out, so test-sets.test.ts's scan of unit files' imports does not take a plant for a real import). */
const importOf = (spec: string, type = false) =>
  `import ${type ? "type { Task } from " : ""}${JSON.stringify(spec)};\n`;

async function problems(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}${file}` });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? "parse"}: ${m.message}`);
}

/** A file that exists in each area, and an import its area forbids and one it allows. */
const PLANTS: Record<string, { file: string; forbidden: string; allowed: string }> = {
  domain: {
    file: "src/domain/errors.ts",
    forbidden: "../engine/clock-port.ts",
    allowed: "./ids.ts",
  },
  engine: {
    file: "src/engine/clock-port.ts",
    forbidden: "../adapters/store/open-database.ts",
    allowed: "../domain/ids.ts",
  },
  config: {
    file: "src/config/config.ts",
    forbidden: "../server/build-server.ts",
    allowed: "../engine/clock-port.ts",
  },
  adapters: {
    file: "src/adapters/store/open-database.ts",
    forbidden: "../../server/build-server.ts",
    allowed: "../../engine/clock-port.ts",
  },
  client: {
    file: "src/client/index.ts",
    forbidden: "../engine/clock-port.ts",
    allowed: "./wire/index.ts",
  },
  server: {
    file: "src/server/build-server.ts",
    forbidden: "../engine/clock-port.ts",
    allowed: "../engine/index.ts",
  },
  console: {
    file: "src/console/mount-console.ts",
    forbidden: "../adapters/store/open-database.ts",
    allowed: "../engine/index.ts",
  },
  cli: {
    file: "src/cli/main.ts",
    forbidden: "../adapters/store/open-database.ts",
    allowed: "../composition/create-taskflow.ts",
  },
  composition: {
    file: "src/composition/create-taskflow.ts",
    forbidden: "../index.ts",
    allowed: "../adapters/store/open-database.ts",
  },
};

test("every area of src/ has a plant", () => {
  assert.deepEqual(Object.keys(PLANTS).sort(), Object.keys(AREAS as object).sort());
});

for (const [area, plant] of Object.entries(PLANTS)) {
  test(`src/${area}: a forbidden import fails lint, an allowed one passes`, async () => {
    const bad = await problems(plant.file, importOf(plant.forbidden));
    assert.ok(
      bad.some((p) => p.startsWith("import-x/no-restricted-paths")),
      `${plant.file} importing ${plant.forbidden}: ${bad.join("; ") || "no problem reported"}`,
    );
    assert.deepEqual(await problems(plant.file, importOf(plant.allowed)), []);
  });
}

test("src/domain and src/engine may not import a driver", async () => {
  const bad = await problems("src/engine/clock-port.ts", importOf("kysely"));
  assert.ok(
    bad.some((p) => p.startsWith("no-restricted-imports")),
    bad.join("; "),
  );
});

test("the Console's pages import only the wire types", async () => {
  const page = "console-ui/src/main.tsx";
  const bad = await problems(page, importOf("../../src/engine/clock-port.ts"));
  assert.ok(
    bad.some((p) => p.startsWith("import-x/no-restricted-paths")),
    bad.join("; "),
  );
  assert.deepEqual(await problems(page, importOf("../../src/client/wire/index.ts", true)), []);
});
