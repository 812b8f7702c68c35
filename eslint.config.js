// Lint rules. The architecture's import rules (docs/architecture.md, "The dependency
// rule") live in lint/boundaries.js: every area of src/ names what it may import.
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";
import { boundaries } from "./lint/boundaries.js";

export default tseslint.config(
  {
    // test/package/consumer is a separate project (the package's consumer): its own
    // tsconfig, checked by test/package/consumer.test.ts against the built package.
    ignores: [
      "node_modules/**",
      "dist/**",
      ".test-build/**",
      // Generated code (scripts/write-definition-schema.mjs); a unit test holds it equal.
      "**/*.generated.ts",
      "bench/results/**",
      "bin/**",
      "test/package/consumer/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.js", "scripts/*.mjs", "lint/*.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  {
    // No import cycles, in the Console's .tsx pages too. Imports name their .ts/.tsx
    // file, so import-x's built-in node resolver finds them (no TypeScript resolver needed).
    files: ["**/*.ts", "**/*.tsx"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".tsx", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [
        createNodeResolver({ extensions: [".ts", ".tsx", ".js", ".json"] }),
      ],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  // The dependency rule, one zone per area of src/ and the Console (lint/boundaries.js).
  ...boundaries,
  {
    files: ["test/**/*.ts", "bench/**/*.ts", "examples/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      // node:test's test()/describe() return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            {
              from: "package",
              package: "node:test",
              name: [
                "test",
                "describe",
                "it",
                "suite",
                "before",
                "after",
                "beforeEach",
                "afterEach",
              ],
            },
          ],
        },
      ],
    },
  },
);
