/**
 * The JSON Schemas a definition carries — the process `vars` and each
 * userTask's `form` — are themselves valid draft 2020-12 schemas that the
 * engine can run: within the limits of schema-limits.ts (each one, and all
 * of a definition's together), valid against the meta-schema, then compiled
 * (schema-compiler.ts), which also refuses unknown keywords (Ajv's strict
 * mode: a typo such as `requried` would otherwise silently check nothing),
 * references that cannot be resolved and patterns RE2 cannot run. A schema
 * refused here would otherwise fail every run start or completion after the
 * publish.
 */
import type { FieldError } from "../../domain/errors.ts";
import { scopesOf } from "./definition-scopes.ts";
import { isRecord, pointer } from "./json-pointer.ts";
import { schemaFindings } from "./schema-compiler.ts";
import { measureSchema, SCHEMA_LIMITS } from "./schema-limits.ts";

export function jsonSchemaErrors(doc: unknown): FieldError[] {
  const schemas: { schema: unknown; at: string }[] = [];
  if (isRecord(doc) && doc["vars"] !== undefined)
    schemas.push({ schema: doc["vars"], at: "/vars" });
  for (const scope of scopesOf(doc)) {
    for (const s of scope.states) {
      const form = s.state["form"];
      if (s.type === "userTask" && form !== undefined) {
        schemas.push({ schema: form, at: pointer(s.at, "form") });
      }
    }
  }
  // The schema check names a form that is neither an object nor a boolean.
  const checked = schemas.filter(({ schema }) => isRecord(schema) || typeof schema === "boolean");
  const errors: FieldError[] = [];
  // Measured before anything compiles: a form repeated in many states compiles once (the
  // compiler's cache), so it counts once.
  const counted = new Map<string, number>();
  for (const { schema, at } of checked) {
    const m = measureSchema(schema, at);
    errors.push(...m.errors);
    counted.set(JSON.stringify(schema), m.cost);
  }
  if (errors.length > 0) return errors;
  const total = [...counted.values()].reduce((a, b) => a + b, 0);
  if (total > SCHEMA_LIMITS.maxDefinitionCost) {
    return [
      {
        pointer: "",
        reason: `has JSON Schemas (vars and forms) of a compile cost of ${total} together, more than the ${SCHEMA_LIMITS.maxDefinitionCost} a definition may have`,
      },
    ];
  }
  for (const { schema, at } of checked) errors.push(...schemaFindings(schema, at));
  return errors;
}
