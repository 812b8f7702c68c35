import { expandAssignee } from "../../domain/assignee.ts";
import type { AssignmentRequest, NextAssignment } from "../../domain/assignment.ts";
import type { Definition } from "../../domain/definition.ts";
import { conflict, notFound, validation } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Instance } from "../../domain/instance.ts";
import { openTask, type Task } from "../../domain/task.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult } from "../human-task-api.ts";
import type { StoreTx } from "../ports.ts";
import type { DefinitionCache } from "./definition-cache.ts";

/**
 * AssignTo inside a transaction: one referral instance under the
 * root and one task per assignee. Used by assign, by `next` on completion and by
 * the parallel join, so all three create referrals the same way.
 *
 * `lockedRoot`: the root of `req.parentInstanceId`'s tree, when the caller has
 * already row-locked it in this transaction (a completion has): it is not locked
 * again.
 */
export async function performAssignment(
  tx: StoreTx,
  definitions: DefinitionCache,
  ctx: ActorContext,
  req: AssignmentRequest,
  now: number,
  lockedRoot?: Instance,
): Promise<AssignResult> {
  const root = req.parentInstanceId
    ? (lockedRoot ?? (await lockOpenRoot(tx, ctx.tenantId, req.parentInstanceId)))
    : undefined;
  if (root?.status === "completed") throw conflict(`process '${root.id}' is already completed`);
  const definitionKey = req.definitionKey ?? root?.definitionKey;
  if (!definitionKey) throw validation("definitionKey is required when parentInstanceId is absent");
  const def = await definitionOf(tx, definitions, ctx.tenantId, definitionKey);
  if (!def) throw notFound("definition", definitionKey);
  await assertNextDefinitions(tx, definitions, ctx.tenantId, req.onAllCompleted, definitionKey);

  const { referral, tasks } = newReferral(ctx, def, root?.id ?? null, req, now);
  await tx.insertReferral(referral, tasks);
  // lockRootForAssignment has moved a fresh root to `open`; a root locked by the
  // caller has tasks already, so it cannot be `notStarted` — checked all the same.
  if (root?.processState === "notStarted") await tx.setProcessState(ctx.tenantId, root.id, "open");
  return { instanceId: referral.id, task: tasks[0]!, tasks };
}

/** The rows of a new referral (under `rootId`, or its own root) and its tasks. */
export function newReferral(
  ctx: ActorContext,
  def: Pick<Definition, "id" | "key">,
  rootId: string | null,
  req: Pick<AssignmentRequest, "assignee" | "vars" | "onAllCompleted">,
  now: number,
): { referral: Instance; tasks: Task[] } {
  const id = newId(now);
  const referral: Instance = {
    id,
    tenantId: ctx.tenantId,
    kind: "referral",
    definitionId: def.id,
    definitionKey: def.key,
    parentInstanceId: rootId,
    rootInstanceId: rootId ?? id,
    status: "running",
    processState: null,
    vars: req.vars ?? {},
    startedBy: ctx.actorId,
    createdAt: now,
    completedAt: null,
    onAllCompleted: req.onAllCompleted ?? null,
    joinedAt: null,
  };
  const tasks: Task[] = expandAssignee(req.assignee).map((a) =>
    openTask({
      id: newId(now),
      tenantId: ctx.tenantId,
      instanceId: id,
      rootInstanceId: referral.rootInstanceId,
      definitionKey: def.key,
      assigneeKind: a.kind,
      assigneeId: a.id,
      assignedBy: ctx.actorId,
      createdAt: now,
    }),
  );
  return { referral, tasks };
}

/**
 * From the cache, else read. A definition read here was committed by an
 * earlier transaction (this use case never creates one), so it may be cached
 * at once.
 */
async function definitionOf(
  tx: StoreTx,
  definitions: DefinitionCache,
  tenantId: string,
  key: string,
): Promise<Definition | undefined> {
  const cached = definitions.get(tenantId, key);
  if (cached) return cached;
  const d = await tx.getDefinition(tenantId, key);
  if (d) definitions.put(d);
  return d;
}

/**
 * The referral attaches to the root of whatever instance was named. The root
 * row lock orders this assignment against CompleteAndEnd and against completions
 * in the same tree (lock order everywhere: root, then task).
 */
async function lockOpenRoot(tx: StoreTx, tenantId: string, instanceId: string): Promise<Instance> {
  const root = await tx.lockRootForAssignment(tenantId, instanceId);
  if (!root) throw notFound("instance", instanceId);
  return root;
}

async function assertNextDefinitions(
  tx: StoreTx,
  definitions: DefinitionCache,
  tenantId: string,
  next: NextAssignment | undefined,
  inherited: string,
): Promise<void> {
  for (let n = next; n; n = n.onAllCompleted) {
    const key = n.definitionKey ?? inherited;
    // `inherited` was just read by the caller; definitions are never deleted.
    if (key !== inherited && !(await definitionOf(tx, definitions, tenantId, key)))
      throw notFound("definition", key);
  }
}
