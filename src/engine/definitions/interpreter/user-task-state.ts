/**
 * `userTask`: ctx.humanTask (the inbox bridge) — one referral, a task per
 * assignee, the completion policy as its join (the other tasks cancelled once
 * it is met). The tasks carry what people and the complete route need in
 * their own columns, as every task does: the rendered title and description,
 * the due time, the form and the actions the completion is checked against
 * (human-tasks/completion-input.ts); an action is required when the state has
 * no `next` to take without one.
 *
 * Escalation is the task's own timeout: when `after` passes first, its open
 * tasks are cancelled and a new referral goes to the escalated assignees — a
 * fresh round, in which completions made before it do not count.
 */
import type { AssigneeRequest } from "../../../domain/assignee.ts";
import type { HumanTaskResult, TaskPolicy } from "../../../domain/human-task-result.ts";
import {
  MAX_TASK_DESCRIPTION_LENGTH,
  MAX_TASK_TITLE_LENGTH,
} from "../../../domain/task-details.ts";
import type { Vars } from "../../../domain/vars.ts";
import type { TaskDetailsRequest } from "../../../domain/task-details.ts";
import type { TaskFormRequest } from "../../../domain/task-form.ts";
import type { UserTaskState } from "../definition-language.ts";
import { resolveAssignee, withAdded } from "./assignees.ts";
import { durationMs } from "./definition-duration.ts";
import type { InterpretedRun, Transition } from "./run-context.ts";

export async function runUserTask(
  run: InterpretedRun,
  state: UserTaskState,
  name: string,
): Promise<Transition> {
  const assignee = await resolveAssignee(run, state.assignee, `state '${name}'`);
  const vars = await referralVars(run, state, name);
  // The task's own columns (what lists show and sort by); the vars keep the texts for
  // the pages that read them there. A template may render longer than a column holds:
  // cut, rather than fail the run over a long customer name.
  const details: TaskDetailsRequest = {
    title: clip(vars["title"] as string, MAX_TASK_TITLE_LENGTH),
    ...(vars["description"] !== undefined && {
      description: clip(vars["description"] as string, MAX_TASK_DESCRIPTION_LENGTH),
    }),
    ...(vars["dueAt"] !== undefined && { dueAt: vars["dueAt"] as string }),
    ...formOf(state),
  };
  const policy = state.completion ?? "all";
  let r: HumanTaskResult;
  if (state.escalation === undefined) {
    r = await run.ctx.humanTask(name, { ...details, assignee, policy, vars });
  } else {
    const timeout = durationMs(await run.valueOf(state.escalation.after));
    r = await run.ctx.humanTask(name, { ...details, assignee, policy, vars, timeout });
    if (r.timedOut) {
      const escalated = await escalate(run, state, assignee, name);
      const again = { ...vars, escalated: true };
      r = await run.ctx.humanTask(name, {
        ...details,
        assignee: escalated,
        policy: fit(policy, escalated),
        vars: again,
      });
    }
  }
  if (r.completedBy === null) throw new Error(`the tasks of state '${name}' were cancelled`);
  const data = withoutAction(r.vars);
  const comment = r.comment ?? null;
  run.output({ action: r.action, comment, completedBy: r.completedBy, data }, state.resultVar);
  const byAction = r.action === null ? undefined : state.actions?.[r.action];
  if (byAction !== undefined) return { next: byAction.next };
  if (state.next !== undefined) return { next: state.next };
  throw new Error(
    `state '${name}' was completed with action '${r.action}', which it does not have`,
  );
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

async function referralVars(
  run: InterpretedRun,
  state: UserTaskState,
  name: string,
): Promise<Vars> {
  const vars: Vars = { title: await run.render(state.title), state: name };
  if (state.description !== undefined) vars["description"] = await run.render(state.description);
  if (state.due !== undefined) {
    vars["dueAt"] = new Date(
      run.ctx.now() + durationMs(await run.valueOf(state.due)),
    ).toISOString();
  }
  return vars;
}

/** The state's form and actions as every task takes them (domain/task-form.ts). */
function formOf(state: UserTaskState): TaskFormRequest & Pick<TaskDetailsRequest, "exclude"> {
  return {
    ...(state.form !== undefined && { form: state.form }),
    ...(state.formUi !== undefined && { formUi: state.formUi }),
    ...(state.exclude !== undefined && { exclude: state.exclude }),
    ...(state.actions !== undefined && {
      actions: Object.fromEntries(
        Object.entries(state.actions).map(([name, a]) => [
          name,
          {
            ...(a.label !== undefined && { label: a.label }),
            ...(a.commentRequired !== undefined && { commentRequired: a.commentRequired }),
          },
        ]),
      ),
      // Without a `next`, an action is the only way on.
      actionRequired: state.next === undefined,
    }),
  };
}

async function escalate(
  run: InterpretedRun,
  state: UserTaskState,
  base: AssigneeRequest,
  name: string,
): Promise<AssigneeRequest> {
  const e = state.escalation!;
  if (e.reassign !== undefined) return resolveAssignee(run, e.reassign, `state '${name}'`);
  if (e.addAssignee !== undefined) {
    return withAdded(base, await resolveAssignee(run, e.addAssignee, `state '${name}'`));
  }
  return base;
}

/** The policy for the escalated round: `atLeast` no more than it has tasks. */
function fit(policy: TaskPolicy, a: AssigneeRequest): TaskPolicy {
  if (a.kind !== "users") return "all";
  if (typeof policy === "object") return { atLeast: Math.min(policy.atLeast, a.ids.length) };
  return policy;
}

function withoutAction(vars: Vars | null): Vars | null {
  if (vars === null || !("action" in vars)) return vars;
  const { action: _action, ...rest } = vars;
  return rest;
}
