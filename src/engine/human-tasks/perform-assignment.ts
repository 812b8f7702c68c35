import { expandAssignee } from "../../domain/assignee.ts";
import type { AssignmentRequest, NextAssignment } from "../../domain/assignment.ts";
import { conflict, notFound, validation } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Instance } from "../../domain/instance.ts";
import type { Task } from "../../domain/task.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult } from "../human-task-api.ts";
import type { StoreTx } from "../ports.ts";

/**
 * AssignTo inside a transaction (002 §4.2): one referral instance under the
 * root and one task per assignee. Used by assign, by `next` on completion and by
 * the parallel join, so all three create referrals the same way.
 */
export async function performAssignment(
  tx: StoreTx,
  ctx: ActorContext,
  req: AssignmentRequest,
  now: number,
): Promise<AssignResult> {
  const root = req.parentInstanceId
    ? await lockOpenRoot(tx, ctx.tenantId, req.parentInstanceId)
    : undefined;
  const definitionKey = req.definitionKey ?? root?.definitionKey;
  if (!definitionKey) throw validation("definitionKey is required when parentInstanceId is absent");
  const def = await tx.getDefinition(ctx.tenantId, definitionKey);
  if (!def) throw notFound("definition", definitionKey);
  await assertNextDefinitions(tx, ctx.tenantId, req.onAllCompleted, definitionKey);

  const id = newId(now);
  const referral: Instance = {
    id,
    tenantId: ctx.tenantId,
    kind: "referral",
    definitionId: def.id,
    definitionKey: def.key,
    parentInstanceId: root?.id ?? null,
    rootInstanceId: root?.id ?? id,
    status: "running",
    processState: null,
    vars: req.vars ?? {},
    startedBy: ctx.actorId,
    createdAt: now,
    completedAt: null,
    onAllCompleted: req.onAllCompleted ?? null,
    joinedAt: null,
  };
  const tasks: Task[] = expandAssignee(req.assignee).map((a) => ({
    id: newId(now),
    tenantId: ctx.tenantId,
    instanceId: id,
    rootInstanceId: referral.rootInstanceId,
    definitionKey: def.key,
    assigneeKind: a.kind,
    assigneeId: a.id,
    assignedBy: ctx.actorId,
    status: "open",
    claimedBy: null,
    claimedAt: null,
    completedBy: null,
    completedAt: null,
    vars: null,
    createdAt: now,
  }));
  await tx.insertInstance(referral);
  await tx.insertTasks(tasks);
  if (root?.processState === "notStarted") await tx.setProcessState(ctx.tenantId, root.id, "open");
  return { instanceId: id, task: tasks[0]!, tasks };
}

/**
 * The referral attaches to the root of whatever instance was named. The root
 * row lock orders this assignment against CompleteAndEnd and against completions
 * in the same tree (lock order everywhere: root, then task).
 */
async function lockOpenRoot(tx: StoreTx, tenantId: string, instanceId: string): Promise<Instance> {
  const root = await tx.lockRootOf(tenantId, { instanceId });
  if (!root) throw notFound("instance", instanceId);
  if (root.status === "completed") throw conflict(`process '${root.id}' is already completed`);
  return root;
}

async function assertNextDefinitions(
  tx: StoreTx,
  tenantId: string,
  next: NextAssignment | undefined,
  inherited: string,
): Promise<void> {
  for (let n = next; n; n = n.onAllCompleted) {
    const key = n.definitionKey ?? inherited;
    // `inherited` was just read by the caller; definitions are never deleted.
    if (key !== inherited && !(await tx.getDefinition(tenantId, key)))
      throw notFound("definition", key);
  }
}
