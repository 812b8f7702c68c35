/**
 * Names a definition refers to outside itself: code steps (`call.step`), code
 * workflows and other definitions (`subProcess`). Only a worker knows its
 * registry, so each list is optional: a check without its list is skipped
 * and reported as not checked, never passed silently.
 */
import type { FieldError } from "../../domain/errors.ts";
import { scopesOf } from "./definition-scopes.ts";
import { pointer } from "./json-pointer.ts";

export interface KnownNames {
  /** Code steps a worker registers (call.step). */
  steps?: ReadonlySet<string> | undefined;
  /** Code workflows (subProcess.workflow). */
  workflows?: ReadonlySet<string> | undefined;
  /** Definition keys that can be started (subProcess.definition). */
  definitions?: ReadonlySet<string> | undefined;
}

export type ReferenceKind = keyof KnownNames;

const CHECKS: { kind: ReferenceKind; type: string; field: string; what: string }[] = [
  { kind: "steps", type: "call", field: "step", what: "code step" },
  { kind: "workflows", type: "subProcess", field: "workflow", what: "workflow" },
  { kind: "definitions", type: "subProcess", field: "definition", what: "published definition" },
];

/** The names of `kind` the definition refers to (each once), for a lookup of which exist. */
export function referencedNames(doc: unknown, kind: ReferenceKind): string[] {
  const names = new Set<string>();
  for (const scope of scopesOf(doc)) {
    for (const s of scope.states) {
      for (const c of CHECKS) {
        const name = s.state[c.field];
        if (c.kind === kind && s.type === c.type && typeof name === "string") names.add(name);
      }
    }
  }
  return [...names];
}

export function referenceErrors(doc: unknown, known: KnownNames): FieldError[] {
  const errors: FieldError[] = [];
  for (const scope of scopesOf(doc)) {
    for (const s of scope.states) {
      for (const c of CHECKS) {
        const names = known[c.kind];
        const name = s.state[c.field];
        if (names === undefined || s.type !== c.type || typeof name !== "string") continue;
        if (!names.has(name)) {
          errors.push({ pointer: pointer(s.at, c.field), reason: reasonOf(c.kind, c.what, name) });
        }
      }
    }
  }
  return errors;
}

function reasonOf(kind: ReferenceKind, what: string, name: string): string {
  if (kind === "definitions") return `names no known ${what}: '${name}'`;
  // Code: only workers have it. Say how to publish before the code is deployed.
  return (
    `names no known ${what}: '${name}' (no worker serves it now or did within the hour; ` +
    `to publish ahead of its deploy, add allowUnknownSteps=true)`
  );
}

/** The reference checks a call could not make, for the caller to say so. */
export const uncheckedReferences = (known: KnownNames): ReferenceKind[] =>
  (["steps", "workflows", "definitions"] as const).filter((k) => known[k] === undefined);
