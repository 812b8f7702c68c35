/**
 * Writes docs/definition.schema.json from the language's schema in code
 * (src/engine/definitions/definition-schema.ts). Run after changing the
 * language: `npx tsx scripts/write-definition-schema.mjs` (tsx: it imports the TypeScript source);
 * test/unit/definitions/definition-schema.test.ts fails until the two match.
 */
/* global URL, console -- Node globals */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { definitionSchema } from "../src/engine/definitions/definition-schema.ts";

const target = fileURLToPath(new URL("../docs/definition.schema.json", import.meta.url));
writeFileSync(target, JSON.stringify(definitionSchema, null, 2) + "\n");
console.log(`wrote ${target}`);
