/**
 * What a definition's userTask puts in its referral's vars for people and for the
 * complete route: title, description, due time, the form and the action names.
 * Tasks assigned through the API have none of these; the page then offers a plain
 * completion.
 */

export interface TaskFacts {
  title: string | null;
  description: string | null;
  dueAt: string | null;
  state: string | null;
  form: unknown;
  actions: string[];
  /** The state has no `next`: a completion must name one of the actions. */
  actionRequired: boolean;
}

/** The engine's names for the form and actions (its user-task state writes them). */
const FORM_VAR = "taskflowForm";
const ACTIONS_VAR = "taskflowActions";
const ACTION_REQUIRED_VAR = "taskflowActionRequired";
export const INTERNAL_VARS = new Set([FORM_VAR, ACTIONS_VAR, ACTION_REQUIRED_VAR]);

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function factsOf(vars: Record<string, unknown> | null): TaskFacts {
  const v = vars ?? {};
  const actions = v[ACTIONS_VAR];
  return {
    title: text(v["title"]),
    description: text(v["description"]),
    dueAt: text(v["dueAt"]),
    state: text(v["state"]),
    form: v[FORM_VAR] ?? null,
    actions: Array.isArray(actions) ? actions.filter((a) => typeof a === "string") : [],
    actionRequired: v[ACTION_REQUIRED_VAR] === true,
  };
}
