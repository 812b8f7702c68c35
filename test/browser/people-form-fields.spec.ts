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
