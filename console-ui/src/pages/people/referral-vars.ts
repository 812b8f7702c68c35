/**
 * What a definition's userTask puts in its referral's vars for people: title,
 * description, due time, the state's name. A task's own columns carry the first three
 * since they existed, and its form and actions always (migration 018 copied those of
 * unfinished tasks out of the vars of referrals made before); the vars are read for a
 * task made before the details, and for the state's name.
 */

export interface TaskFacts {
  title: string | null;
  description: string | null;
  dueAt: string | null;
  state: string | null;
}

/** The names referrals made before migration 018 kept the form and actions under. */
export const INTERNAL_VARS = new Set(["taskflowForm", "taskflowActions", "taskflowActionRequired"]);

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function factsOf(vars: Record<string, unknown> | null): TaskFacts {
  const v = vars ?? {};
  return {
    title: text(v["title"]),
    description: text(v["description"]),
    dueAt: text(v["dueAt"]),
    state: text(v["state"]),
  };
}
