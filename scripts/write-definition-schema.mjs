/**
 * Writes docs/definition.schema.json and the engine's precompiled validator
 * (src/engine/definitions/definition-validator.generated.ts) from the
 * language's schema in code (src/engine/definitions/definition-schema.ts).
 * Run after changing the language: `npx tsx scripts/write-definition-schema.mjs`
 * (tsx: it imports the TypeScript source);
 * test/unit/definitions/definition-schema.test.ts fails until both match.
 */
/* global URL, console -- Node globals */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { definitionSchema } from "../src/engine/definitions/definition-schema.ts";
import { definitionValidatorCode } from "./definition-validator-code.ts";

const write = (/** @type {string} */ relative, /** @type {string} */ text) => {
  const target = fileURLToPath(new URL(relative, import.meta.url));
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
};
write("../docs/definition.schema.json", JSON.stringify(definitionSchema, null, 2) + "\n");
write("../src/engine/definitions/definition-validator.generated.ts", definitionValidatorCode());
