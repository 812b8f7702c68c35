/**
 * The four-eyes rule at the moment someone acts: a task's exclusions
 * (domain/task-exclusions.ts) refuse its completion — and its claim, so an
 * excluded member cannot hold a group task from the others — with a 403 naming
 * why. Checked after the task's state and the actor's permission, as every
 * rule of the use cases; what the process holds is read only when the rule
 * asks about the starter or earlier completers.
 */
import { taskflowError } from "../../domain/errors.ts";
import type { Task } from "../../domain/task.ts";
import { exclusionOf } from "../../domain/task-exclusions.ts";
import type { HumanTaskDeps } from "./deps.ts";

export async function assertNotExcluded(
  deps: Pick<HumanTaskDeps, "store">,
  tenantId: string,
  task: Pick<Task, "id" | "rootInstanceId" | "exclude">,
  actorId: string,
): Promise<void> {
  const rule = task.exclude;
  if (rule === null) return;
  const why = await exclusionOf(rule, actorId, async () => {
    const [root, completedEarlier] = await Promise.all([
      deps.store.getInstance(tenantId, task.rootInstanceId),
      rule.earlierCompleters
        ? deps.store.completedInProcess(tenantId, task.rootInstanceId, actorId, task.id)
        : Promise.resolve(false),
    ]);
    return { startedBy: root?.startedBy ?? "", completedEarlier };
  });
  if (why !== null) throw taskflowError("ExcludedFromTask", { actorId, taskId: task.id, why });
}
