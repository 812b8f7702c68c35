/**
 * A task's form (a JSON Schema object with its presentation hints, docs/api.md) as
 * fields a page can render, and the typed values sent back. Only the top level becomes
 * inputs; a nested object or array is edited as JSON text. The hints give the order,
 * labels, help texts and widgets; without them the schema's `title`, `description`,
 * type and format decide. The engine checks the submission against the schema again,
 * so the page does not repeat its rules.
 */
import type { FormUi, FormWidget, JsonSchema } from "../../wire.ts";
import { localized } from "./localized.ts";

export type FieldKind =
  "text" | "textarea" | "number" | "integer" | "boolean" | "select" | "date" | "json";

export interface FormField {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description: string | null;
  options: string[];
}

/** What the inputs hold: text, or a checkbox's state. */
export type FormValues = Record<string, string | boolean>;

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function fieldsOf(form: JsonSchema | null, ui: FormUi | null = null): FormField[] {
  if (!isSchema(form) || !isSchema(form["properties"])) return [];
  const required = Array.isArray(form["required"]) ? form["required"] : [];
  const fields = Object.entries(form["properties"]).map(([name, prop]): FormField => {
    const p = isSchema(prop) ? prop : {};
    const hints = ui?.fields?.[name];
    const options = Array.isArray(p["enum"]) ? p["enum"].map(String) : [];
    return {
      name,
      label: localized(hints?.label) ?? (typeof p["title"] === "string" ? p["title"] : name),
      kind: hints?.widget !== undefined ? widgetKind(hints.widget, p) : kindOf(p),
      required: required.includes(name),
      description:
        localized(hints?.help) ?? (typeof p["description"] === "string" ? p["description"] : null),
      options,
    };
  });
  const order = ui?.order ?? [];
  const rank = (name: string) => {
    const i = order.indexOf(name);
    return i === -1 ? order.length : i;
  };
  // Stable: fields the order does not name keep the schema's order, after the named ones.
  return fields
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.name) - rank(b.f.name) || a.i - b.i)
    .map((x) => x.f);
}

function widgetKind(w: FormWidget, p: Schema): FieldKind {
  switch (w) {
    case "checkbox":
      return "boolean";
    case "number":
      return p["type"] === "integer" ? "integer" : "number";
    default:
      return w;
  }
}

function kindOf(p: Schema): FieldKind {
  if (Array.isArray(p["enum"])) return "select";
  switch (p["type"]) {
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case "object":
    case "array":
      return "json";
    case "string":
      if (p["format"] === "date") return "date";
      return typeof p["maxLength"] === "number" && p["maxLength"] <= 200 ? "text" : "textarea";
    default:
      return "text";
  }
}

export function initialValues(fields: FormField[]): FormValues {
  return Object.fromEntries(fields.map((f) => [f.name, f.kind === "boolean" ? false : ""]));
}

/**
 * The vars to submit. An empty input is left out (so "required" is the engine's to
 * say); a number that does not parse is sent as typed, and the engine names the field.
 */
export function varsOf(fields: FormField[], values: FormValues): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (typeof v === "boolean") vars[f.name] = v;
    else if (v !== undefined && v.trim() !== "") vars[f.name] = typed(f, v.trim());
  }
  return vars;
}

function typed(f: FormField, v: string): unknown {
  if (f.kind === "number" || f.kind === "integer") {
    const n = Number(v);
    return Number.isFinite(n) ? n : v;
  }
  if (f.kind === "json") {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }
  return v;
}

/**
 * The engine's field errors (JSON pointer → reason) by field name. "/vars/x/…" belongs
 * to x; a missing required property is reported on "/vars" and names x in the reason.
 * "/action" and whatever fits no field are returned under "" for the form as a whole.
 */
export function errorsByField(
  fields: FormField[],
  problems: ReadonlyMap<string, string>,
): Map<string, string> {
  const names = new Set(fields.map((f) => f.name));
  const out = new Map<string, string>();
  const add = (k: string, reason: string) =>
    out.set(k, out.has(k) ? `${out.get(k)}; ${reason}` : reason);
  for (const [pointer, reason] of problems) {
    const field = fieldOf(pointer, reason);
    if (field !== null && names.has(field)) add(field, reason);
    else add("", pointer === "" ? reason : `${pointer}: ${reason}`);
  }
  return out;
}

function fieldOf(pointer: string, reason: string): string | null {
  const m = /^\/vars\/([^/]+)/.exec(pointer);
  if (m?.[1] !== undefined) return m[1].replace(/~1/g, "/").replace(/~0/g, "~");
  const missing = /required property '([^']+)'/.exec(reason);
  return pointer === "/vars" && missing?.[1] !== undefined ? missing[1] : null;
}
