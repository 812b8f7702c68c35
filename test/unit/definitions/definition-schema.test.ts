/**
 * The published schema: docs/definition.schema.json is the one in code
 * (regenerate with scripts/write-definition-schema.mjs), it is a valid
 * draft 2020-12 schema, and definitions read from YAML and JSON alike.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { stringify } from "yaml";
import { definitionSchema } from "../../../src/engine/definitions/definition-schema.ts";
import { parseDefinitionText } from "../../../src/engine/definitions/definition-text.ts";
import { InvalidDocumentError } from "../../../src/domain/errors.ts";
import { expenseApproval } from "../../support/definition-fixtures.ts";
import { definitionValidatorCode } from "../../../scripts/definition-validator-code.ts";

test("docs/definition.schema.json matches the schema in code", () => {
  const file = JSON.parse(
    readFileSync(new URL("../../../docs/definition.schema.json", import.meta.url), "utf8"),
  ) as unknown;
  assert.deepEqual(
    file,
    JSON.parse(JSON.stringify(definitionSchema)),
    "run: npx tsx scripts/write-definition-schema.mjs",
  );
});

test("the schema is a valid draft 2020-12 schema that a plain validator can use", () => {
  // No `discriminator` option: other tools see an unknown keyword and oneOf alone.
  const ajv = new Ajv2020({ strict: false });
  assert.equal(ajv.validateSchema(definitionSchema), true);
  const validate = ajv.compile(definitionSchema);
  assert.equal(validate(expenseApproval()), true, JSON.stringify(validate.errors));
  assert.equal(validate({ ...expenseApproval(), start: 3 }), false);
});

test("YAML and JSON texts read into the same definition", () => {
  const d = expenseApproval();
  assert.deepEqual(parseDefinitionText(stringify(d), "yaml"), d);
  assert.deepEqual(parseDefinitionText(JSON.stringify(d), "json"), d);
});

test("YAML that is not plain JSON data is refused with pointers", () => {
  const cases: [string, string][] = [
    ["a: .inf", "/a"],
    ["a:\n  b: !!binary aGk=", "/a/b"],
    ["a: 1\na: 2", ""],
    ["x: [1,", ""],
  ];
  for (const [text, pointer] of cases) {
    assert.throws(
      () => parseDefinitionText(text, "yaml"),
      (e: unknown) =>
        e instanceof InvalidDocumentError && e.errors.some((x) => x.pointer === pointer),
      text,
    );
  }
});

test("a YAML alias bomb is refused, not expanded", () => {
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 12; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    bomb.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(", ")}]`);
  }
  assert.throws(() => parseDefinitionText(bomb.join("\n"), "yaml"), InvalidDocumentError);
});

test("the engine's precompiled validator is Ajv's code for the schema in code", () => {
  const file = readFileSync(
    new URL("../../../src/engine/definitions/definition-validator.generated.ts", import.meta.url),
    "utf8",
  );
  assert.ok(file === definitionValidatorCode(), "run: npx tsx scripts/write-definition-schema.mjs");
});
