/**
 * Who did what when in an instance tree: every task's creation, claim and completion
 * (or cancellation), and every join, in time order.
 */
import { assigneeText } from "./format.ts";
import type { InstanceTree } from "../../wire.ts";

export interface HistoryEntry {
  at: string;
  who: string | null;
  what: string;
  taskId: string | null;
}

export function historyOf(roots: InstanceTree[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  const visit = (i: InstanceTree) => {
    const step = typeof i.vars?.["state"] === "string" ? ` (${i.vars["state"]})` : "";
    for (const t of i.tasks) {
      const to = assigneeText(t.assignee);
      out.push({
        at: t.createdAt,
        who: t.assignedBy,
        what: `assigned a task${step} to ${to}`,
        taskId: t.id,
      });
      if (t.claimedAt !== null && t.claimedBy !== null) {
        out.push({
          at: t.claimedAt,
          who: t.claimedBy,
          what: `claimed the task${step}`,
          taskId: t.id,
        });
      }
      if (t.completedAt !== null) {
        const what =
          t.status === "done" ? `completed the task${step}` : `— the task${step} was cancelled`;
        out.push({
          at: t.completedAt,
          who: t.status === "done" ? t.completedBy : null,
          what,
          taskId: t.id,
        });
      }
    }
    if (i.joinedAt !== null)
      out.push({
        at: i.joinedAt,
        who: null,
        what: `— the join of ${i.definitionKey}${step} ran`,
        taskId: null,
      });
    for (const c of i.children) visit(c);
  };
  roots.forEach(visit);
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
