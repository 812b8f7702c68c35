/**
 * A subProcess's child vars checked against the child definition's `vars`
 * schema before the child starts, as a start over REST checks them (the same
 * compiler, the same bounds: value-check.ts): otherwise a parent could start
 * a child on vars its own definition refuses. A refusal fails the parent's
 * subProcess state — the language gives it no onError — with a typed
 * failure (`type` "child-vars") listing the findings, and no child starts.
 * The version is pinned and published versions never change, so a replay
 * decides the same.
 */
import { isTaskflowError } from "../../../domain/errors.ts";
import { NonRetryableError } from "../../../domain/workflow-failure.ts";
import type { Vars } from "../../../domain/vars.ts";
import { valueFindings } from "../value-check.ts";
import type { InterpretedRun } from "./run-context.ts";

/** Findings listed in the failure's message; the rest are counted. */
const LISTED = 10;

export class ChildVarsInvalid extends NonRetryableError {
  override name = "ChildVarsInvalid";
  readonly failureType = "child-vars";
}

export async function checkChildVars(
  run: InterpretedRun,
  key: string,
  version: number,
  vars: Vars,
): Promise<void> {
  const def = await run.deps.definitions.load(run.ctx.tenantId, key, version);
  const what = `the vars of the subProcess child '${key}' v${version}`;
  let findings;
  try {
    const compiled = def.varsValidator();
    if (compiled === null) return;
    findings = valueFindings(compiled, vars, "/vars", what);
  } catch (e) {
    // A schema the engine cannot run (409) or vars too large to check (413): the child cannot start.
    if (isTaskflowError(e)) throw new ChildVarsInvalid(e.message);
    throw e;
  }
  if (findings.length === 0) return;
  const listed = findings.slice(0, LISTED).map((f) => `${f.pointer} ${f.reason}`);
  if (findings.length > LISTED) listed.push(`and ${findings.length - LISTED} more`);
  throw new ChildVarsInvalid(`${what} do not match its schema: ${listed.join("; ")}`);
}
