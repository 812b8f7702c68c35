/**
 * The document against the language's JSON Schema (definition-schema.ts),
 * with Ajv's findings turned into `{ pointer, reason }`: the pointer names
 * the property itself (a missing one, an unknown one, a bad state name), not
 * just its parent, and alternatives (`oneOf`) that all failed become one
 * finding saying which forms are allowed instead of one per alternative.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { FieldError } from "../../domain/errors.ts";
import { STATE_TYPES } from "./definition-language.ts";
import generatedValidator from "./definition-validator.generated.ts";
import { pointer } from "./json-pointer.ts";

/**
 * The schema's validator, compiled when the package is built rather than in
 * each process (scripts/definition-validator-code.mjs says what it saves and
 * holds it equal to the schema).
 */
const validate = generatedValidator as unknown as ValidateFunction;

export function schemaErrors(doc: unknown): FieldError[] {
  if (validate(doc)) return [];
  const errors = validate.errors ?? [];
  const alternatives = errors.filter((e) => e.keyword === "oneOf");
  const outermost = new Map(alternatives.map((e) => [e.instancePath, e]));
  const out: FieldError[] = [];
  for (const e of errors) {
    // Inside failed alternatives: the outermost oneOf finding speaks for all of them
    // (Ajv reports nested ones first).
    if (e.keyword === "oneOf" && outermost.get(e.instancePath) !== e) continue;
    if (e.keyword !== "oneOf" && alternatives.some((a) => within(e.instancePath, a.instancePath)))
      continue;
    // A name's own failures come again as one propertyNames finding.
    if (e.propertyName !== undefined && e.keyword !== "propertyNames") continue;
    // "must match then schema" restates the `required` finding it comes with.
    if (e.keyword === "if") continue;
    out.push(finding(e));
  }
  return dedupe(out);
}

const within = (path: string, base: string) => path === base || path.startsWith(base + "/");

function finding(e: ErrorObject): FieldError {
  const at = e.instancePath;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { pointer: pointer(at, String(params["missingProperty"])), reason: "is required" };
    case "dependentRequired":
      return {
        pointer: pointer(at, String(params["missingProperty"])),
        reason: `is required with '${String(params["property"])}'`,
      };
    case "additionalProperties":
      return {
        pointer: pointer(at, String(params["additionalProperty"])),
        reason: "is not a property of this object",
      };
    case "propertyNames":
      return { pointer: pointer(at, String(params["propertyName"])), reason: nameReason(e.schema) };
    case "discriminator":
      return params["error"] === "mapping"
        ? {
            pointer: pointer(at, "type"),
            reason: `unknown state type '${String(params["tagValue"])}'; one of: ${STATE_TYPES.join(", ")}`,
          }
        : { pointer: pointer(at, "type"), reason: "must be a string naming the state type" };
    case "oneOf":
      return { pointer: at, reason: alternativesReason(e) };
    case "not":
      return { pointer: at, reason: commentOf(e.schema) ?? "has a combination not allowed" };
    case "const":
      return { pointer: at, reason: `must be ${JSON.stringify(params["allowedValue"])}` };
    case "enum":
      return {
        pointer: at,
        reason: `must be one of ${(params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    default:
      return { pointer: at, reason: e.message ?? e.keyword };
  }
}

/** The failed oneOf's own description says what the forms are. */
function alternativesReason(e: ErrorObject): string {
  const parent = e.parentSchema as { description?: unknown } | undefined;
  const what = typeof parent?.description === "string" ? parent.description : "";
  return `matches none of the allowed forms${what === "" ? "" : `: ${what}`}`;
}

function nameReason(schema: unknown): string {
  const { pattern, maxLength } = (schema ?? {}) as { pattern?: unknown; maxLength?: unknown };
  return `is not an allowed name: it must match ${String(pattern)} and have at most ${String(maxLength)} characters`;
}

function commentOf(schema: unknown): string | undefined {
  const c = (schema as { $comment?: unknown } | undefined)?.$comment;
  return typeof c === "string" ? c : undefined;
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const k = `${e.pointer}\n${e.reason}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
