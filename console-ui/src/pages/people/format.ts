/** How the people pages write times and assignees. */
import type { TaskAssignee } from "../../wire.ts";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * A local date and time, or a dash for a time that has not happened. A text that is no
 * time is shown as it is: `vars.dueAt` is whatever an assignment's caller wrote, and
 * formatting an invalid Date throws ("Invalid time value"), which took the whole page down.
 */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function assigneeText(a: TaskAssignee): string {
  return a.kind === "group" ? `group ${a.id}` : a.id;
}
