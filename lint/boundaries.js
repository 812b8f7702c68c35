// The architecture's import rules (docs/architecture.md, "The dependency rule"): each
// area of src/ names the areas it may import, and an import of any other area fails
// `npm run lint`. Paths are resolved (import-x/no-restricted-paths), so a relative
// import is judged by the file it reaches, not by how it is spelled. Kept apart from
// eslint.config.js so test/unit/lint-boundaries.test.ts can lint planted violations
// with exactly these rules, without building the typed program.
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/**
 * The areas of src/ and what each may import besides itself.
 * @type {Record<string, string[]>}
 */
export const AREAS = {
  // The innermost layer: values and rules with no I/O.
  domain: [],
  // Use cases and the ports they need; adapters implement the ports.
  engine: ["domain"],
  // Settings: parse and validate; read the engine's defaults and kinds.
  config: ["domain", "engine"],
  // Implementations of the engine's ports over drivers.
  adapters: ["domain", "engine", "config"],
  // The HTTP client for host backends and the wire types of the REST contract.
  client: ["domain"],
  // HTTP routes over the engine's public surface (src/engine/index.ts), never its internals.
  server: ["domain", "engine/index.ts", "config", "client"],
  // The Console's server side: sessions, logins, the proxy to the engine's routes.
  console: ["domain", "engine/index.ts", "config", "client"],
  // The command line: starts and manages TaskFlow through the composition root.
  cli: ["composition", "config", "domain", "client"],
  // The composition root, the one place that picks adapters.
  composition: ["domain", "engine", "config", "adapters", "client", "server", "console"],
};

/** Drivers and frameworks: only these areas may import them. */
const DRIVERS = [
  "pg",
  "mysql2",
  "mysql2/*",
  "better-sqlite3",
  "kysely",
  "fastify",
  "@fastify/*",
  "ioredis",
  "pino",
  "openid-client",
];
const MAY_USE_DRIVERS = new Set(["adapters", "server", "console", "cli", "composition"]);

const dir = (area) => `./src/${area}`;

/**
 * @param {string} area
 * @param {string[]} allowed
 */
function zonesFor(area, allowed) {
  const zones = [];
  for (const other of Object.keys(AREAS)) {
    if (other === area || allowed.includes(other)) continue;
    const onlyFace = allowed.find((a) => a.startsWith(`${other}/`));
    zones.push({
      target: dir(area),
      from: dir(other),
      ...(onlyFace ? { except: [`./${onlyFace.slice(other.length + 1)}`] } : {}),
      message: onlyFace
        ? `src/${area} uses src/${other} only through src/${onlyFace} (docs/architecture.md).`
        : `src/${area} may import only ${allowed.join(", ") || "itself"} (docs/architecture.md, The dependency rule).`,
    });
  }
  // The package's front doors re-export everything; nothing inside imports them back.
  zones.push({
    target: dir(area),
    from: ["./src/index.ts", "./src/workflow.ts"],
    message:
      "src/index.ts and src/workflow.ts are the package's front doors: only users of the package import them.",
  });
  return zones;
}

export const boundaries = [
  {
    files: ["src/**/*.ts"],
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        {
          basePath: root,
          zones: Object.entries(AREAS).flatMap(([a, allowed]) => zonesFor(a, allowed)),
        },
      ],
    },
  },
  ...Object.keys(AREAS)
    .filter((a) => !MAY_USE_DRIVERS.has(a))
    .map((a) => ({
      files: [`src/${a}/**/*.ts`],
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [
              {
                group: DRIVERS,
                message: `drivers and frameworks belong in adapters, server and composition, not src/${a}.`,
              },
            ],
          },
        ],
      },
    })),
  {
    // The Console's pages reach the server over HTTP only; they share the wire types.
    files: ["console-ui/**/*.ts", "console-ui/**/*.tsx"],
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        {
          basePath: root,
          zones: [
            {
              target: "./console-ui",
              from: "./src",
              except: ["./client/wire"],
              message: "the Console's pages import only the wire types (src/client/wire).",
            },
          ],
        },
      ],
    },
  },
];
