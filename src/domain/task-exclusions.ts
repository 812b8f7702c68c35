/**
 * The four-eyes rule of a task: users who may not complete (nor claim) it —
 * named ones, the process's starter, or whoever completed an earlier task of
 * the same process — the same whichever way the task is made. Kept as the
 * rule, not as a list resolved when the task is made: "whoever completed an
 * earlier task" is decided when someone tries, by what the process holds then.
 */
import { taskflowError } from "./errors.ts";
import { MAX_ID_LENGTH, MAX_USERS_PER_ASSIGNMENT } from "./limits.ts";

export interface TaskExclusions {
  /** These users, by id. */
  users: string[];
  /** The user who started the task's process. */
  starter: boolean;
  /** Anyone who completed another task of the same process. */
  earlierCompleters: boolean;
}

export interface TaskExclusionsRequest {
  users?: string[] | undefined;
  starter?: boolean | undefined;
  earlierCompleters?: boolean | undefined;
}

/** What the process tells about an actor, read only when the rule needs it. */
export interface ExclusionFacts {
  startedBy: string;
  /** The actor completed another task of the task's process. */
  completedEarlier: boolean;
}

const invalid = (field: string, detail: string) =>
  taskflowError("InvalidTaskDetails", { detail: `${field}: ${detail}` });

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The rule a request asks for, its shape checked; null when it excludes nobody. */
export function taskExclusionsOf(v: unknown, field: string): TaskExclusions | null {
  if (v === undefined || v === null) return null;
  if (!isRecord(v))
    throw invalid(field, "must be an object: { users, starter, earlierCompleters }");
  for (const key of Object.keys(v)) {
    if (key !== "users" && key !== "starter" && key !== "earlierCompleters")
      throw invalid(
        `${field}.${key}`,
        "is not part of the rule (users, starter, earlierCompleters)",
      );
  }
  const users = v["users"] ?? [];
  if (
    !Array.isArray(users) ||
    users.length > MAX_USERS_PER_ASSIGNMENT ||
    !users.every((u) => typeof u === "string" && u.length > 0 && u.length <= MAX_ID_LENGTH)
  )
    throw invalid(`${field}.users`, `must list at most ${MAX_USERS_PER_ASSIGNMENT} user ids`);
  const flag = (name: "starter" | "earlierCompleters"): boolean => {
    const f = v[name];
    if (f === undefined || f === null) return false;
    if (typeof f !== "boolean") throw invalid(`${field}.${name}`, "must be true or false");
    return f;
  };
  const rule = {
    users: [...new Set(users as string[])],
    starter: flag("starter"),
    earlierCompleters: flag("earlierCompleters"),
  };
  return rule.users.length === 0 && !rule.starter && !rule.earlierCompleters ? null : rule;
}

/** Why the rule excludes `actor`, or null. */
export async function exclusionOf(
  rule: TaskExclusions,
  actor: string,
  facts: () => Promise<ExclusionFacts>,
): Promise<string | null> {
  if (rule.users.includes(actor)) return "the task excludes them by name";
  if (!rule.starter && !rule.earlierCompleters) return null;
  const f = await facts();
  if (rule.starter && f.startedBy === actor) return "they started its process (four-eyes rule)";
  if (rule.earlierCompleters && f.completedEarlier)
    return "they completed an earlier task of its process (four-eyes rule)";
  return null;
}
