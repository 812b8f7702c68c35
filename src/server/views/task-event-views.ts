/** Task events (domain/task-event.ts) as the REST contract sends them (client/wire/tasks.ts). */
import type { TaskEvent } from "../../domain/task-event.ts";
import type * as Wire from "../../client/wire/index.ts";

export function taskEventView(e: TaskEvent): Wire.TaskEvent {
  return {
    id: String(e.seq),
    taskId: e.taskId,
    instanceId: e.instanceId,
    rootInstanceId: e.rootInstanceId,
    type: e.type,
    actor: e.actor,
    at: new Date(e.at).toISOString(),
    reason: e.reason,
    status: e.status,
    assignee: { kind: e.assigneeKind, id: e.assigneeId },
    claimedBy: e.claimedBy,
    action: e.action,
    comment: e.comment,
  };
}
