/**
 * A form's required checkbox must be ticked. JSON Schema's `required` asks
 * only that a property be present, and a checkbox always is (unticked is
 * `false`), so on its own it would let every "I confirm the accounts are
 * revoked" be left unticked. The rule, for every form: a top-level property
 * of `type: "boolean"` listed in `required` must be `true` — what a browser's
 * `required` on a checkbox means, and what the Console and the example app
 * render as a checkbox (a boolean without `enum`). The engine applies it to
 * every completion; the pages leave the refusal to it, as for the schema's
 * other rules. A yes/no answer where no is allowed is an optional boolean,
 * an `enum` or the state's `actions`.
 */
import type { FieldError } from "../../domain/errors.ts";
import { isRecord, pointer } from "./json-pointer.ts";

export const UNTICKED_REASON = "must be ticked: the form requires this checkbox";

/** The names of the form's required checkboxes. */
export function requiredCheckboxes(form: unknown): string[] {
  if (!isRecord(form) || !isRecord(form["properties"]) || !Array.isArray(form["required"])) {
    return [];
  }
  const properties = form["properties"];
  return form["required"].filter((name): name is string => {
    if (typeof name !== "string" || !Object.hasOwn(properties, name)) return false;
    const p = properties[name];
    return isRecord(p) && p["type"] === "boolean" && !Array.isArray(p["enum"]);
  });
}

/**
 * One finding per required checkbox submitted unticked (`false`); a missing
 * one is the schema's `required` finding, another type the schema's `type`.
 */
export function untickedCheckboxErrors(form: unknown, data: Record<string, unknown>): FieldError[] {
  return requiredCheckboxes(form)
    .filter((name) => data[name] === false)
    .map((name) => ({ pointer: pointer("/vars", name), reason: UNTICKED_REASON }));
}
