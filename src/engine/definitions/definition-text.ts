/**
 * A definition written as text — JSON, or YAML (a superset people find
 * easier to write by hand) — read into a plain JSON value. YAML can say
 * more than JSON (`.inf`, `.nan`, anchors that repeat a subtree many times,
 * tags), so what it yields is checked to be JSON that every store keeps as
 * sent: finite numbers, plain objects and arrays, nesting within
 * MAX_DEFINITION_DEPTH, text without NUL or unpaired surrogates.
 */
import { parseDocument } from "yaml";
import { documentError, type FieldError } from "../../domain/errors.ts";
import { unstorableReason } from "../../domain/storable-text.ts";
import { isRecord, pointer } from "./json-pointer.ts";

export const MAX_DEFINITION_DEPTH = 64;

export type DefinitionFormat = "json" | "yaml";

/** The JSON value of the text; throws a Validation error listing what is wrong. */
export function parseDefinitionText(text: string, format: DefinitionFormat): unknown {
  const value = format === "json" ? parseJson(text) : parseYaml(text);
  const errors = notJson(value);
  if (errors.length > 0)
    throw documentError(
      "InvalidDefinition",
      { detail: "the definition is not plain JSON data" },
      errors,
    );
  return value;
}

/** By file name (CLI) or media type (HTTP): YAML when it says so, JSON otherwise. */
export const formatOf = (nameOrType: string): DefinitionFormat =>
  /\.ya?ml$|[/+-]yaml\b/i.test(nameOrType) ? "yaml" : "json";

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw documentError("InvalidDefinition", { detail: "the definition is not valid JSON" }, [
      { pointer: "", reason: (e as Error).message },
    ]);
  }
}

function parseYaml(text: string): unknown {
  // Aliases are capped (the "billion laughs" document); a duplicate key is an error, not a silent overwrite.
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw documentError(
      "InvalidDefinition",
      { detail: "the definition is not valid YAML" },
      doc.errors.slice(0, 20).map((e) => ({
        pointer: "",
        reason: (e.message.split("\n")[0] ?? e.message).replace(/:$/, ""),
      })),
    );
  }
  try {
    return doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw documentError("InvalidDefinition", { detail: "the definition is not valid YAML" }, [
      { pointer: "", reason: (e as Error).message },
    ]);
  }
}

/** Where the value is not plain, storable JSON. */
export function notJson(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(value, "", 0, errors);
  return errors.slice(0, 50);
}

function walk(v: unknown, at: string, depth: number, errors: FieldError[]): void {
  if (errors.length >= 50) return;
  if (depth > MAX_DEFINITION_DEPTH) {
    errors.push({ pointer: at, reason: `nests deeper than ${MAX_DEFINITION_DEPTH} levels` });
    return;
  }
  if (v === null || typeof v === "boolean") return;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) errors.push({ pointer: at, reason: "is not a finite number" });
    return;
  }
  if (typeof v === "string") {
    const why = unstorableReason(v);
    if (why !== null) errors.push({ pointer: at, reason: why });
    return;
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => walk(x, pointer(at, i), depth + 1, errors));
    return;
  }
  if (
    isRecord(v) &&
    (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
  ) {
    for (const [k, x] of Object.entries(v)) {
      const why = unstorableReason(k);
      if (why !== null) errors.push({ pointer: pointer(at, k), reason: `its name: ${why}` });
      if (k === "__proto__")
        errors.push({ pointer: pointer(at, k), reason: "is not an accepted name" });
      walk(x, pointer(at, k), depth + 1, errors);
    }
    return;
  }
  errors.push({
    pointer: at,
    reason: "is not JSON data (a string, number, boolean, null, array or object)",
  });
}
