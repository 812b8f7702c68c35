/**
 * The JSON Schemas a definition carries — the process `vars` and each
 * userTask's `form` — are themselves valid draft 2020-12 schemas: checked
 * against the meta-schema, then compiled, which also refuses unknown
 * keywords (Ajv's strict mode: a typo such as `requried` would otherwise
 * silently check nothing) and references that cannot be resolved.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FieldError } from "../../domain/errors.ts";
import { scopesOf } from "./definition-scopes.ts";
import { isRecord, pointer } from "./json-pointer.ts";

export function jsonSchemaErrors(doc: unknown): FieldError[] {
  const errors: FieldError[] = [];
  if (isRecord(doc) && doc["vars"] !== undefined) checkSchema(doc["vars"], "/vars", errors);
  for (const scope of scopesOf(doc)) {
    for (const s of scope.states) {
      const form = s.state["form"];
      if (s.type === "userTask" && form !== undefined) {
        checkSchema(form, pointer(s.at, "form"), errors);
      }
    }
  }
  return errors;
}

let shared: Ajv2020 | undefined;

/**
 * One Ajv for every form: building one compiles the meta-schema, hundreds of
 * times the cost of checking a form. `addUsedSchema: false` keeps a form's
 * `$id` out of the instance, so two forms may use the same one; each is
 * removed from the cache after its check, so the instance does not grow.
 */
export function formAjv(): Ajv2020 {
  shared ??= newFormAjv();
  return shared;
}

function newFormAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    addUsedSchema: false,
    allErrors: true,
    strict: true,
    // Only unknown keywords are refused; these others are style, and Ajv would log them.
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    // A form refers to nothing outside itself.
    loadSchema: undefined,
  });
  addFormats.default(ajv);
  return ajv;
}

function checkSchema(schema: unknown, at: string, errors: FieldError[]): void {
  if (!isRecord(schema) && typeof schema !== "boolean") return; // the schema check says so
  const ajv = formAjv();
  if (!ajv.validateSchema(schema)) {
    const seen = new Set<string>();
    for (const e of ajv.errors ?? []) {
      // One finding per place: the meta-schema's anyOf alternatives repeat it.
      if (seen.has(e.instancePath)) continue;
      seen.add(e.instancePath);
      errors.push({
        pointer: at + e.instancePath,
        reason: `is not a valid JSON Schema: ${e.message ?? e.keyword}`,
      });
    }
    return;
  }
  try {
    ajv.compile(schema);
  } catch (e) {
    errors.push({ pointer: at, reason: `is not a valid JSON Schema: ${(e as Error).message}` });
  } finally {
    ajv.removeSchema(schema);
  }
}
