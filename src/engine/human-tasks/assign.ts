import { expandAssignee } from "../../domain/assignee.ts";
import type { AssignmentRequest } from "../../domain/assignment.ts";
import type { Definition } from "../../domain/definition.ts";
import { newId } from "../../domain/ids.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import { openTask } from "../../domain/task.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult } from "../human-task-api.ts";
import { assertAssignee, assertKnownUser, assertNextChain, requireId } from "./checks.ts";
import { knownDefinition } from "./definition-cache.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { cacheOpenTasks, jsonCopy } from "./open-task-cache.ts";
import { performAssignment } from "./perform-assignment.ts";

/** AssignTo: a referral with one task per assignee under a running root. Every check runs before the transaction writes anything. */
export async function assign(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: AssignmentRequest,
): Promise<AssignResult> {
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  if (req.definitionKey !== undefined) requireId("definitionKey", req.definitionKey);
  if (req.parentInstanceId !== undefined) requireId("parentInstanceId", req.parentInstanceId);
  assertAssignee(deps.directory, req.assignee);
  assertStorableText(req.vars, "vars");
  assertNextChain(deps.directory, req.onAllCompleted);
  const now = deps.clock.now();
  const direct = await assignUnderRoot(deps, ctx, req, now);
  return (
    direct ?? deps.store.transaction((tx) => performAssignment(tx, deps.definitions, ctx, req, now))
  );
}

/**
 * The common case — an assignment under an existing, running tree whose named
 * definitions all exist — as one atomic store write (`Store.assignUnderRoot`:
 * one statement on PostgreSQL). Definitions never change or disappear once
 * committed, so checking them before that write is as good as inside it.
 * Undefined on any doubt (no parent, a definition missing, the instance missing,
 * its root completed), having written nothing: the transactional path then
 * decides, with the same errors in the same order as always.
 */
async function assignUnderRoot(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: AssignmentRequest,
  now: number,
): Promise<AssignResult | undefined> {
  if (req.parentInstanceId === undefined) return undefined;
  let definition: Definition | null = null;
  if (req.definitionKey !== undefined) {
    const d = await knownDefinition(deps.definitions, deps.store, ctx.tenantId, req.definitionKey);
    if (!d) return undefined;
    definition = d;
  }
  for (let n = req.onAllCompleted; n; n = n.onAllCompleted) {
    if (
      n.definitionKey !== undefined &&
      !(await knownDefinition(deps.definitions, deps.store, ctx.tenantId, n.definitionKey))
    )
      return undefined;
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
  const root = await deps.store.assignUnderRoot({
    tenantId: ctx.tenantId,
    parentInstanceId: req.parentInstanceId,
    definition,
    referral,
    tasks: assignees,
  });
  if (!root) return undefined;
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
    }),
  );
  // Committed by now: where a completion is one statement, it need not read them first.
  if (deps.store.completesInOneStatement)
    cacheOpenTasks(deps, tasks, {
      id: referral.id,
      tenantId: ctx.tenantId,
      definitionKey,
      parentInstanceId: root.id,
      rootInstanceId: root.id,
      startedBy: referral.startedBy,
      // As the row holds it (JSON), and no alias of the caller's object.
      onAllCompleted: jsonCopy(referral.onAllCompleted),
    });
  return { instanceId: referral.id, task: tasks[0]!, tasks };
}
