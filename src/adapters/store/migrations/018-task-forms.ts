/**
 * 018: what a task asks of its completer (domain/task-form.ts) in its own
 * columns — the form (its JSON Schema with the presentation hints, as JSON
 * text) and the named actions (with whether one is required) — and what the
 * completion chose: the action and the comment.
 *
 * Before 018 a definition's userTask kept its form and action names in the
 * referral's vars (`taskflowForm`, `taskflowActions`, `taskflowActionRequired`),
 * where the complete route read them. The unfinished tasks of such referrals
 * get them copied here, so their completions are checked as before; done and
 * cancelled ones are never completed again. Read and written in TypeScript,
 * not in SQL: the three dialects' JSON functions differ.
 */
import { sql, type Kysely, type Migration } from "kysely";

export function taskForms(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const tasks = () => db.schema.alterTable("tasks");
      await tasks().addColumn("form", "text").execute();
      await tasks().addColumn("actions", "text").execute();
      await tasks().addColumn("action", "varchar(64)").execute();
      await tasks().addColumn("comment", "text").execute();
      await copyFromReferralVars(db);
    },
  };
}

const FORM_VAR = "taskflowForm";
const ACTIONS_VAR = "taskflowActions";
const ACTION_REQUIRED_VAR = "taskflowActionRequired";

async function copyFromReferralVars(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ tenant_id: string; id: string; vars: string | null }>`
    select t.tenant_id, t.id, i.vars from tasks t
    join instances i on i.tenant_id = t.tenant_id and i.id = t.instance_id
    where t.status in ('open', 'claimed') and i.vars like ${"%taskflow%"}`.execute(db);
  for (const r of rows) {
    const vars = parse(r.vars);
    if (vars === null) continue;
    const form = vars[FORM_VAR];
    const names = vars[ACTIONS_VAR];
    const formText =
      typeof form === "object" && form !== null ? JSON.stringify({ schema: form, ui: null }) : null;
    const actions = Array.isArray(names)
      ? names
          .filter((n): n is string => typeof n === "string")
          .map((name) => ({ name, label: null, commentRequired: false }))
      : null;
    const actionsText =
      actions === null
        ? null
        : JSON.stringify({ required: vars[ACTION_REQUIRED_VAR] === true, list: actions });
    if (formText === null && actionsText === null) continue;
    await sql`update tasks set form = ${formText}, actions = ${actionsText}
      where tenant_id = ${r.tenant_id} and id = ${r.id}`.execute(db);
  }
}

function parse(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
