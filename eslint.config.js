// Lint rules. The `no-restricted-imports` block is the architecture rule of
// Dependencies point inward (docs/architecture.md), so domain and engine never import an
// adapter, the server, the CLI or a driver.
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

const outward = [
  {
    group: ["**/adapters/**", "**/server/**", "**/cli/**", "**/client/**"],
    message:
      "domain/engine must not depend on outer layers (docs/architecture.md, The dependency rule).",
  },
  {
    group: [
      "pg",
      "mysql2",
      "mysql2/*",
      "better-sqlite3",
      "kysely",
      "fastify",
      "@fastify/*",
      "ioredis",
      "pino",
    ],
    message: "drivers and frameworks belong in adapters/server.",
  },
];

export default tseslint.config(
  {
    // test/package/consumer is a separate project (the package's consumer): its own
    // tsconfig, checked by test/package/consumer.test.ts against the built package.
    ignores: [
      "node_modules/**",
      "dist/**",
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
        projectService: { allowDefaultProject: ["eslint.config.js", "scripts/*.mjs"] },
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
    // No import cycles. Imports name their .ts file, so import-x's built-in node
    // resolver finds them with the .ts extension (no TypeScript resolver needed).
    files: ["**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js", ".json"] })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  {
    files: ["src/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...outward,
            { group: ["**/engine/**"], message: "domain is the innermost layer." },
          ],
        },
      ],
    },
  },
  {
    files: ["src/engine/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...outward,
            {
              // The front doors re-export the engine (workflow() included), so an engine
              // file importing one would import the engine back through the package's API.
              group: ["**/workflow.ts", "**/index.ts", "**/composition/**"],
              message:
                "the engine must not import the package's front doors (src/workflow.ts, src/index.ts) or the composition root; move what it needs into the engine.",
            },
          ],
        },
      ],
    },
  },
  {
    // The HTTP client is for host backends: it depends on the REST contract only,
    // never on the engine, the server, an adapter, the config or the composition root.
    files: ["src/client/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/engine/**",
                "**/server/**",
                "**/adapters/**",
                "**/cli/**",
                "**/config/**",
                "../*.ts",
              ],
              message:
                "src/client talks HTTP only; write wire types in src/client (docs/architecture.md).",
            },
            outward[1],
          ],
          paths: [
            { name: "taskflow", message: "the package root is the engine; import its parts." },
          ],
        },
      ],
    },
  },
  {
    // The CLI is a host of the composition root: it gets stores, the server's and the
    // Console's parts through src/composition (never picking an adapter itself), and
    // may use config, domain and client directly.
    files: ["src/cli/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/adapters/**", "**/server/**", "**/console/**", "**/engine/**"],
              message:
                "src/cli imports src/composition, config, domain, client and cli only (issue 22, item 4).",
            },
            outward[1],
          ],
        },
      ],
    },
  },
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
