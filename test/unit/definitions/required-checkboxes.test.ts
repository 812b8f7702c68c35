/**
 * The required-checkbox rule (required-checkboxes.ts): which properties are
 * checkboxes the form requires, and which submissions leave one unticked.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  requiredCheckboxes,
  UNTICKED_REASON,
  untickedCheckboxErrors,
} from "../../../src/engine/definitions/required-checkboxes.ts";

const form = {
  type: "object",
  required: ["agree", "note", "choice", "a/b", "absent"],
  properties: {
    agree: { type: "boolean" },
    "a/b": { type: "boolean" },
    optional: { type: "boolean" },
    note: { type: "string" },
    // A boolean with an enum is a select, not a checkbox.
    choice: { type: "boolean", enum: [true, false] },
  },
};

test("a required checkbox is a top-level required boolean without enum", () => {
  assert.deepEqual(requiredCheckboxes(form), ["agree", "a/b"]);
  assert.deepEqual(requiredCheckboxes({ properties: { agree: { type: "boolean" } } }), []);
  assert.deepEqual(requiredCheckboxes(true), []);
  assert.deepEqual(requiredCheckboxes({ required: "agree", properties: {} }), []);
  // A name of Object.prototype is not a property of the form.
  assert.deepEqual(requiredCheckboxes({ required: ["toString"], properties: {} }), []);
});

test("false is unticked; true passes; a missing or mistyped one is the schema's to report", () => {
  assert.deepEqual(untickedCheckboxErrors(form, { agree: false, "a/b": false, optional: false }), [
    { pointer: "/vars/agree", reason: UNTICKED_REASON },
    { pointer: "/vars/a~1b", reason: UNTICKED_REASON },
  ]);
  assert.deepEqual(untickedCheckboxErrors(form, { agree: true, "a/b": true }), []);
  assert.deepEqual(untickedCheckboxErrors(form, { agree: "yes" }), []);
  assert.deepEqual(untickedCheckboxErrors(form, {}), []);
});
