/** The interpreter's input and output: what a run of `taskflow.definition-run` carries. */
import type { Vars } from "../../../domain/vars.ts";
import type { BranchPath } from "./compiled-definition.ts";

export const DEFINITION_RUN = "taskflow.definition-run";

export interface DefinitionRunInput {
  key: string;
  /** Pinned when the run starts: the run reads this version's body for good. */
  version: number;
  vars: Vars;
  /** A parallel branch's run: the path of its scope in the definition. */
  branch?: BranchPath;
  /** After continueAsNew: the state to go on with and the previous output. */
  at?: string;
  last?: unknown;
}

export interface DefinitionRunOutput {
  vars: Vars;
  /** Set when a `terminate` state ended the process (its reason). */
  terminated?: string;
}

export function isRunOutput(v: unknown): v is DefinitionRunOutput {
  return typeof v === "object" && v !== null && "vars" in v;
}
