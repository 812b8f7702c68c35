/**
 * One task: what it is, who has it, its form and actions. Completing an open group task
 * claims it first (the engine completes only a claimed group task). A completion the
 * engine accepts leads back to the inbox; a refused one keeps the page and the task open.
 */
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { ApiProblem, engine } from "../../api.ts";
import { useSession } from "../../session.tsx";
import { canClaim, canRelease, claim, needsClaim, release } from "./claim-actions.ts";
import { assigneeText, when } from "./format.ts";
import { factsOf } from "./referral-vars.ts";
import { TaskForm, type Completion } from "./task-form.tsx";
import { TaskHistory } from "./task-history.tsx";
import { TaskHandover } from "./task-handover.tsx";
import { localized } from "./localized.ts";
import { fallbackName } from "./use-task-titles.ts";
import type { Task } from "../../wire.ts";
import { useTask } from "./use-task.ts";

export function TaskPage() {
  const { id = "" } = useParams();
  const { session } = useSession();
  const userId = session?.userId ?? "";
  const navigate = useNavigate();
  const { task, referral, error, setTask } = useTask(id);
  const [actionError, setActionError] = useState<string | null>(null);

  if (error !== null) {
    return (
      <section>
        <h1>Task</h1>
        <p role="alert" className="error">
          {error}
        </p>
      </section>
    );
  }
  if (task === null || referral === null) return <p aria-busy="true">Loading the task…</p>;

  const facts = factsOf(referral.vars);
  // The task's own details; a task made before they existed has them in its referral's vars.
  const title = task.title ?? facts.title ?? `Task of ${fallbackName(task)}`;
  const description = task.description ?? facts.description;
  const dueAt = task.dueAt ?? facts.dueAt;
  const act = (f: (id: string) => Promise<Task>) => () => {
    setActionError(null);
    f(task.id)
      .then(setTask)
      .catch((e: unknown) => setActionError(e instanceof ApiProblem ? e.message : String(e)));
  };
  const submit = async ({ vars, action, comment }: Completion) => {
    // A group task is claimed to be completed; a refused completion gives it back to the
    // group, so a mistake on the form does not keep it from the others.
    const claimedHere = needsClaim(task);
    if (claimedHere) setTask(await claim(task.id));
    try {
      await engine(`tasks/${task.id}/complete`, {
        method: "POST",
        body: { vars, action, comment },
      });
    } catch (e) {
      if (claimedHere) setTask(await release(task.id).catch(() => task));
      throw e;
    }
    const outcome = localized(task.actions?.find((a) => a.name === action)?.label) ?? action;
    void navigate("/inbox", { state: { completed: { title, outcome } } });
  };
  const live = task.status === "open" || task.status === "claimed";
  // A pending delegation is resolved by the delegate, not completed (TaskHandover offers it).
  const othersUserTask = task.assignee.kind === "user" && task.assignee.id !== userId;
  const mayComplete =
    live &&
    task.delegation !== "pending" &&
    !othersUserTask &&
    (task.claimedBy === null || task.claimedBy === userId);

  return (
    <section>
      <h1>{title}</h1>
      {description !== null && <p>{description}</p>}
      <dl className="facts">
        <dt>State</dt>
        <dd>
          <span className={`badge status-${task.status}`}>{task.status}</span>
        </dd>
        <dt>Assignee</dt>
        <dd>{assigneeText(task.assignee)}</dd>
        <dt>Claimed by</dt>
        <dd>{task.claimedBy ?? "—"}</dd>
        <dt>Created</dt>
        <dd>{when(task.createdAt)}</dd>
        {dueAt !== null && (
          <>
            <dt>Due</dt>
            <dd>
              {when(dueAt)}
              {task.overdue && <span className="badge status-overdue">overdue</span>}
            </dd>
          </>
        )}
        <dt>Priority</dt>
        <dd>{task.priority}</dd>
        {task.exclude !== null && (
          <>
            <dt>Four-eyes rule</dt>
            <dd>{fourEyesText(task.exclude, userId)}</dd>
          </>
        )}
        {task.completedBy !== null && (
          <>
            <dt>Completed by</dt>
            <dd>
              {task.completedBy}, {when(task.completedAt)}
            </dd>
          </>
        )}
        {task.action !== null && (
          <>
            <dt>Outcome</dt>
            <dd>
              {localized(task.actions?.find((a) => a.name === task.action)?.label) ?? task.action}
            </dd>
          </>
        )}
        {task.comment !== null && (
          <>
            <dt>Comment</dt>
            <dd>{task.comment}</dd>
          </>
        )}
        <dt>Process</dt>
        <dd>
          <Link to={`/instances/${task.rootInstanceId}`}>
            {task.definitionKey}
            {facts.state !== null && `, step ${facts.state}`}
          </Link>
        </dd>
      </dl>
      <div className="toolbar">
        {canClaim(task) && (
          <button type="button" className="secondary" onClick={act(claim)}>
            Claim
          </button>
        )}
        {canRelease(task, userId) && (
          <button type="button" className="secondary" onClick={act(release)}>
            Release
          </button>
        )}
        <Link to="/inbox">Back to the inbox</Link>
      </div>
      {actionError !== null && (
        <p role="alert" className="error">
          {actionError}
        </p>
      )}
      {task.vars !== null && <SubmittedVars vars={task.vars} />}
      {mayComplete ? (
        <TaskForm key={task.id} task={task} submit={submit} />
      ) : (
        <p>
          {!live
            ? `This task is ${task.status}.`
            : task.delegation === "pending"
              ? `This task is delegated to ${task.assignee.id}.`
              : othersUserTask
                ? `This task is ${task.assignee.id}'s.`
                : `This task is claimed by ${task.claimedBy ?? "someone else"}.`}
        </p>
      )}
      <TaskHandover task={task} userId={userId} changed={setTask} />
      <TaskHistory
        taskId={task.id}
        actions={task.actions}
        version={`${task.status}:${task.claimedBy ?? ""}:${task.assignee.id}:${task.delegation ?? ""}`}
      />
    </section>
  );
}

/** Who the task's rule keeps from completing it, in words. */
function fourEyesText(rule: NonNullable<Task["exclude"]>, userId: string): string {
  const who = [
    ...(rule.starter ? ["whoever started the process"] : []),
    ...(rule.earlierCompleters ? ["whoever completed an earlier task of it"] : []),
    ...rule.users.map((u) => (u === userId ? "you" : u)),
  ];
  return `not to be completed by ${who.join(", ")}`;
}

/** What the completer handed in, for a task that is done. */
function SubmittedVars({ vars }: { vars: Record<string, unknown> }) {
  return (
    <>
      <h2>Submitted</h2>
      <dl className="facts">
        {Object.entries(vars).map(([k, v]) => (
          <div key={k} className="fact">
            <dt>{k}</dt>
            <dd>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
