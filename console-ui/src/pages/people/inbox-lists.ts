/**
 * The lists the inbox page offers, read from and written to the URL (?list=…&group=…)
 * so a list can be linked and survives a reload. Each maps to one engine query.
 */

export type InboxList = { kind: "mine" } | { kind: "group"; group: string } | { kind: "claimed" };

export function listFromSearch(search: URLSearchParams): InboxList {
  const group = search.get("group");
  if (group !== null && group !== "") return { kind: "group", group };
  return search.get("list") === "claimed" ? { kind: "claimed" } : { kind: "mine" };
}

export function searchFor(list: InboxList): string {
  if (list.kind === "group") return `?group=${encodeURIComponent(list.group)}`;
  return list.kind === "claimed" ? "?list=claimed" : "";
}

/** The engine path of a list; plain users may only name themselves and their groups. */
export function enginePathFor(list: InboxList, userId: string): string {
  const user = encodeURIComponent(userId);
  if (list.kind === "group") return `tasks?group=${encodeURIComponent(list.group)}`;
  if (list.kind === "claimed") return `tasks?user=${user}&status=claimed`;
  return `tasks?user=${user}`;
}

export function labelOf(list: InboxList): string {
  if (list.kind === "group") return `Group ${list.group}`;
  return list.kind === "claimed" ? "Claimed by me" : "My inbox";
}

export const sameList = (a: InboxList, b: InboxList): boolean => searchFor(a) === searchFor(b);
