import { expandAssignee } from "../../domain/assignee.ts";
import type { AssignmentRequest } from "../../domain/assignment.ts";
import type { Definition } from "../../domain/definition.ts";
import { taskflowError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import { openTask } from "../../domain/task.ts";
import type { TaskDetails } from "../../domain/task-details.ts";
import { checkedTaskDetails } from "./task-details-check.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult } from "./human-task-api.ts";
import { assertAssignee, assertKnownUser, assertNextChain, requireId } from "./checks.ts";
import { knownDefinition } from "./known-definitions.ts";
import type { HumanTaskDeps } from "./deps.ts";
import {
  assertTreeRunning,
  assignResultOf,
  definitionsOf,
  missingDefinition,
  newReferral,
} from "./perform-assignment.ts";

/** A root that completes between the write and the re-read cannot come back; this bounds the rest. */
const MAX_ATTEMPTS = 3;

/**
 * AssignTo: a referral with one task per assignee under a running root (or as
 * its own root). Every check runs before the store writes anything; the store
 * writes only under a running root and says when it did not, and the errors
 * are then read off the tree: NotFound for a missing instance, Conflict for a
 * completed root — in that order, before a missing definition.
 */
export async function assign(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: AssignmentRequest,
): Promise<AssignResult> {
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  if (req.definitionKey !== undefined) requireId("definitionKey", req.definitionKey);
  if (req.parentInstanceId !== undefined) requireId("parentInstanceId", req.parentInstanceId);
  assertAssignee(deps.directory, req.assignee);
  const details = checkedTaskDetails(req);
  assertStorableText(req.vars, "vars");
  assertNextChain(deps.directory, req.onAllCompleted);
  const now = deps.clock.now();
  if (req.parentInstanceId === undefined) return assignNewTree(deps, ctx, req, now);
  return assignUnderRoot(deps, ctx, req, req.parentInstanceId, now, details);
}

/** A referral without a parent is the root of its own tree. */
async function assignNewTree(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: AssignmentRequest,
  now: number,
): Promise<AssignResult> {
  const key = req.definitionKey;
  if (!key) throw taskflowError("DefinitionKeyRequired");
  const defs = await definitionsOf(deps, ctx.tenantId, key, req.onAllCompleted);
  if ("missing" in defs) throw taskflowError("DefinitionNotFound", { key: defs.missing });
  const rows = newReferral(ctx, defs.def, null, req, now);
  await deps.store.assignNewTree(rows);
  return assignResultOf(rows);
}

async function assignUnderRoot(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: AssignmentRequest,
  parentInstanceId: string,
  now: number,
  details: TaskDetails,
): Promise<AssignResult> {
  let definition: Definition | null = null;
  if (req.definitionKey !== undefined) {
    const defs = await definitionsOf(deps, ctx.tenantId, req.definitionKey, req.onAllCompleted);
    if ("missing" in defs)
      return missingDefinition(deps, ctx.tenantId, parentInstanceId, defs.missing);
    definition = defs.def;
  } else {
    // The steps inherit the root's definition, which exists; only named ones are checked.
    for (let n = req.onAllCompleted; n; n = n.onAllCompleted) {
      const k = n.definitionKey;
      if (
        k !== undefined &&
        !(await knownDefinition(deps.definitions, deps.store, ctx.tenantId, k))
      )
        return missingDefinition(deps, ctx.tenantId, parentInstanceId, k);
    }
  }
  const referral = {
    id: newId(now),
    vars: req.vars ?? {},
    startedBy: ctx.actorId,
    createdAt: now,
    onAllCompleted: req.onAllCompleted ?? null,
  };
  const assignees = expandAssignee(req.assignee).map((a) => ({
    id: newId(now),
    assigneeKind: a.kind,
    assigneeId: a.id,
  }));
  const plan = {
    tenantId: ctx.tenantId,
    parentInstanceId,
    definition,
    referral,
    tasks: assignees,
    details,
  };
  for (let attempt = 1; ; attempt++) {
    const root = await deps.store.assign(plan);
    if (root) {
      const definitionKey = definition?.key ?? root.definitionKey;
      const tasks = assignees.map((a) =>
        openTask({
          ...a,
          tenantId: ctx.tenantId,
          instanceId: referral.id,
          rootInstanceId: root.id,
          definitionKey,
          assignedBy: ctx.actorId,
          createdAt: now,
          ...details,
        }),
      );
      return { instanceId: referral.id, task: tasks[0]!, tasks };
    }
    await assertTreeRunning(deps, ctx.tenantId, parentInstanceId);
    // The instance was committed between the write and the read: try again.
    if (attempt === MAX_ATTEMPTS)
      throw taskflowError("InstanceChanging", { instanceId: parentInstanceId });
  }
}
