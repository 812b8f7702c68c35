/** How the people pages write times and assignees. */
import type { Assignee } from "./task-types.ts";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A local date and time, or a dash for a time that has not happened. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  return dateTime.format(new Date(iso));
}

export function assigneeText(a: Assignee): string {
  return a.kind === "group" ? `group ${a.id}` : a.id;
}
