/**
 * The task form's mapping, without a browser: a userTask's schema to fields, inputs to
 * typed vars, and the engine's pointers back to fields (a missing required property is
 * reported on "/vars" and named only in the reason).
 */
import { expect, test } from "@playwright/test";
import {
  errorsByField,
  fieldsOf,
  initialValues,
  varsOf,
} from "../../console-ui/src/pages/people/form-fields.ts";

const FORM = {
  type: "object",
  required: ["amount"],
  properties: {
    amount: { type: "number", title: "Amount" },
    count: { type: "integer" },
    kind: { enum: ["travel", "food"] },
    urgent: { type: "boolean" },
    on: { type: "string", format: "date" },
    lines: { type: "array" },
    note: { type: "string" },
  },
};

test("fields: kinds, labels and required from the schema", () => {
  const fields = fieldsOf(FORM);
  expect(fields.map((f) => [f.name, f.kind, f.required, f.label])).toEqual([
    ["amount", "number", true, "Amount"],
    ["count", "integer", false, "count"],
    ["kind", "select", false, "kind"],
    ["urgent", "boolean", false, "urgent"],
    ["on", "date", false, "on"],
    ["lines", "json", false, "lines"],
    ["note", "textarea", false, "note"],
  ]);
  expect(fieldsOf(null)).toEqual([]);
});

test("hints: the order, labels and help in the reader's language, and widgets", () => {
  const fields = fieldsOf(FORM, {
    order: ["note", "amount"],
    fields: {
      note: { label: { en: "Note", fa: "یادداشت" }, help: "Why", widget: "text" },
      amount: { label: { fa: "مبلغ" } },
      count: { widget: "number" },
      urgent: { widget: "checkbox", label: "Urgent?" },
    },
  });
  // The named ones first, in the hints' order; the rest in the schema's.
  expect(fields.map((f) => [f.name, f.kind, f.label, f.description])).toEqual([
    ["note", "text", "Note", "Why"],
    // Only Persian given: shown in Persian to an English reader too (the first one given).
    ["amount", "number", "مبلغ", null],
    ["count", "integer", "count", null],
    ["kind", "select", "kind", null],
    ["urgent", "boolean", "Urgent?", null],
    ["on", "date", "on", null],
    ["lines", "json", "lines", null],
  ]);
});

test("vars: typed values, empty inputs left out, unparsable text sent as typed", () => {
  const fields = fieldsOf(FORM);
  const values = {
    ...initialValues(fields),
    amount: " 12.5 ",
    count: "x3",
    kind: "food",
    lines: "[1,2]",
    note: "",
  };
  expect(varsOf(fields, values)).toEqual({
    amount: 12.5,
    count: "x3",
    kind: "food",
    urgent: false,
    lines: [1, 2],
  });
});

test("errors: pointers to fields, a missing required property to its field, the rest to the form", () => {
  const fields = fieldsOf(FORM);
  const problems = new Map([
    ["/vars/count", "must be integer"],
    ["/vars", "must have required property 'amount'"],
    ["/action", "must be one of: approve, reject"],
  ]);
  expect([...errorsByField(fields, problems)]).toEqual([
    ["count", "must be integer"],
    ["amount", "must have required property 'amount'"],
    ["", "/action: must be one of: approve, reject"],
  ]);
});
