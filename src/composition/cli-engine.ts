/**
 * The engine's parts a CLI command uses that need no wiring (parsing,
 * validating and diffing definition text; the shape of a stored key; what a
 * workflow module registers is in cli-workflows.ts). Re-exported here so the CLI's one door into the
 * inner layers is the composition root (eslint.config.js, the src/cli block).
 */
export { isStoredKeyShape } from "../engine/coordination/api-keys.ts";
export { definitionDiff, type DiffEntry } from "../engine/definitions/definition-diff.ts";
export { formatOf, parseDefinitionText } from "../engine/definitions/definition-text.ts";
export { validateDefinition } from "../engine/definitions/validate-definition.ts";
