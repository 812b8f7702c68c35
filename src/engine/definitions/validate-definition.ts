/**
 * The validator: every finding about a definition at once, each with a JSON
 * pointer into the document. Pure: no I/O, no clock; what only a worker or
 * the store knows (registered steps, published definitions and their
 * triggers) comes in as context. Never throws on any input.
 */
import type { FieldError } from "../../domain/errors.ts";
import type { ProcessDefinition } from "./definition-language.ts";
import { expressionErrors } from "./expression-checks.ts";
import { graphErrors } from "./graph-checks.ts";
import { jsonSchemaErrors } from "./json-schema-checks.ts";
import { policyErrors } from "./policy-checks.ts";
import {
  referenceErrors,
  uncheckedReferences,
  type KnownNames,
  type ReferenceKind,
} from "./reference-checks.ts";
import { schemaErrors } from "./schema-check.ts";
import { triggerErrors, type PublishedTrigger } from "./trigger-checks.ts";

export interface ValidationContext extends KnownNames {
  /** Triggers of the tenant's published definitions (other keys' collide). */
  publishedTriggers?: readonly PublishedTrigger[] | undefined;
}

export type ValidationResult =
  | { valid: true; definition: ProcessDefinition; notChecked: ReferenceKind[] }
  | { valid: false; errors: FieldError[]; notChecked: ReferenceKind[] };

export function validateDefinition(
  doc: unknown,
  context: ValidationContext = {},
): ValidationResult {
  const errors = [
    ...schemaErrors(doc),
    ...graphErrors(doc),
    ...policyErrors(doc),
    ...expressionErrors(doc),
    ...jsonSchemaErrors(doc),
    ...triggerErrors(doc, context.publishedTriggers),
    ...referenceErrors(doc, context),
  ];
  const notChecked = uncheckedReferences(context);
  if (errors.length > 0) return { valid: false, errors: sortByPointer(errors), notChecked };
  return { valid: true, definition: doc as ProcessDefinition, notChecked };
}

/** Document order is not kept by the checks; pointer order reads well and is stable. */
function sortByPointer(errors: FieldError[]): FieldError[] {
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.pointer < b.e.pointer ? -1 : a.e.pointer > b.e.pointer ? 1 : a.i - b.i))
    .map(({ e }) => e);
}
