import { expandAssignee } from "../../domain/assignee.ts";
import type { AssignmentRequest, NextAssignment } from "../../domain/assignment.ts";
import type { Definition } from "../../domain/definition.ts";
import { taskflowError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Instance } from "../../domain/instance.ts";
import { openTask, type Task } from "../../domain/task.ts";
import { taskDetailsOf } from "../../domain/task-details.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult } from "./human-task-api.ts";
import type { NewReferral } from "./task-store-port.ts";
import { knownDefinition } from "./known-definitions.ts";
import type { HumanTaskDeps } from "./deps.ts";

/**
 * What assign, `next` on completion and the parallel join share: the rows of a
 * new referral, built the same way by all three before the store is asked to
 * write them, and the definition checks that come before.
 */

/** The rows of a new referral (under `rootId`, or its own root) and its tasks. */
export function newReferral(
  ctx: ActorContext,
  def: Pick<Definition, "id" | "key">,
  rootId: string | null,
  req: Omit<AssignmentRequest, "definitionKey" | "parentInstanceId">,
  now: number,
): NewReferral {
  const id = newId(now);
  // Checked when the request came in (assertTaskDetails); a stored join's were checked then.
  const details = taskDetailsOf(req);
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
      ...details,
    }),
  );
  return { referral, tasks };
}

/** What a use case answers for rows it had written. */
export const assignResultOf = (rows: NewReferral): AssignResult => ({
  instanceId: rows.referral.id,
  task: rows.tasks[0]!,
  tasks: rows.tasks,
});

/**
 * The definition `key` and every definition an onAllCompleted chain names
 * (a step without one inherits the step before's), or the first key missing.
 * Definitions are never deleted once committed, so checking them before a
 * write is as good as inside it.
 */
export async function definitionsOf(
  deps: HumanTaskDeps,
  tenantId: string,
  key: string,
  next: NextAssignment | null | undefined,
): Promise<{ def: Definition } | { missing: string }> {
  const def = await knownDefinition(deps.definitions, deps.store, tenantId, key);
  if (!def) return { missing: key };
  for (let n = next; n; n = n.onAllCompleted) {
    const k = n.definitionKey ?? key;
    if (k !== key && !(await knownDefinition(deps.definitions, deps.store, tenantId, k)))
      return { missing: k };
  }
  return { def };
}

/**
 * Throws what an assignment under `instanceId` meets first: NotFound when the
 * instance does not exist, Conflict when its root is completed. Returns when
 * the tree is running.
 */
export async function assertTreeRunning(
  deps: HumanTaskDeps,
  tenantId: string,
  instanceId: string,
): Promise<void> {
  const inst = await deps.store.getInstance(tenantId, instanceId);
  if (!inst) throw taskflowError("InstanceNotFound", { instanceId });
  const root =
    inst.rootInstanceId === inst.id
      ? inst
      : await deps.store.getInstance(tenantId, inst.rootInstanceId);
  if (root?.status !== "running")
    throw taskflowError("RootClosed", { rootInstanceId: inst.rootInstanceId });
}

/** The missing definition's error, after the errors an assignment under `instanceId` meets first. */
export async function missingDefinition(
  deps: HumanTaskDeps,
  tenantId: string,
  instanceId: string,
  key: string,
): Promise<never> {
  await assertTreeRunning(deps, tenantId, instanceId);
  throw taskflowError("DefinitionNotFound", { key });
}
