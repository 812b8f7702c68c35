/**
 * A process (or one of its referrals) in context: its vars, its tasks and child
 * instances (with its parallel branches' processes), and who did what when. The diagram
 * of its path is another page's.
 */
import { useEffect, useState } from "react";
import { Link, useParams } from "react-router";
import { engine } from "../../api.ts";
import { useSession } from "../../session.tsx";
import { assigneeText, when } from "./format.ts";
import { historyOf } from "./instance-history.ts";
import { branchesOf, branchLabel } from "./process-branches.ts";
import { INTERNAL_VARS } from "./referral-vars.ts";
import type { InstanceTree, Task } from "../../wire.ts";

export function InstancePage() {
  const { id = "" } = useParams();
  const { session } = useSession();
  const userId = session?.userId ?? "";
  const [instance, setInstance] = useState<InstanceTree | null>(null);
  const [branches, setBranches] = useState<InstanceTree[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setInstance(null);
    setBranches([]);
    const load = async () => {
      const i = await engine<InstanceTree>(`instances/${id}`, { signal: abort.signal });
      setInstance(i);
      setBranches(await branchesOf(i, userId, abort.signal));
    };
    load().catch((e: unknown) => {
      if (!abort.signal.aborted) setError(e instanceof Error ? e.message : String(e));
    });
    return () => abort.abort();
  }, [id, userId]);

  if (error !== null) {
    return (
      <section>
        <h1>Instance</h1>
        <p role="alert" className="error">
          {error}
        </p>
      </section>
    );
  }
  if (instance === null) return <p aria-busy="true">Loading the instance…</p>;
  return (
    <section>
      <h1>
        {instance.kind === "process" ? "Process" : "Referral"}{" "}
        {branchLabel(instance) ?? instance.definitionKey}
      </h1>
      <div className="toolbar">
        <Link to={`/instances/${instance.id}/path`}>Diagram</Link>
        {instance.parentInstanceId !== null && (
          <Link to={`/instances/${instance.rootInstanceId}`}>The whole process</Link>
        )}
      </div>
      <InstanceFacts instance={instance} />
      <VarsTable vars={instance.vars} />
      <TasksTable tasks={[instance, ...branches].flatMap(allTasks)} />
      <ChildrenList children={[...(instance.children ?? []), ...branches]} />
      <History instances={[instance, ...branches]} />
    </section>
  );
}

function InstanceFacts({ instance: i }: { instance: InstanceTree }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <span className={`badge state-${i.processState ?? i.status}`}>
          {i.processState ?? i.status}
        </span>
      </dd>
      <dt>Started by</dt>
      <dd>{i.startedBy ?? "—"}</dd>
      <dt>Started</dt>
      <dd>{when(i.createdAt)}</dd>
      <dt>Completed</dt>
      <dd>{when(i.completedAt)}</dd>
      <dt>Id</dt>
      <dd>
        <code>{i.id}</code>
      </dd>
    </dl>
  );
}

function VarsTable({ vars }: { vars: Record<string, unknown> | null }) {
  const entries = Object.entries(vars ?? {}).filter(([k]) => !INTERNAL_VARS.has(k));
  return (
    <>
      <h2>Variables</h2>
      {entries.length === 0 ? (
        <p>No variables.</p>
      ) : (
        <table className="vars-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td>
                  <code>{JSON.stringify(v)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The tasks of the instance and of every referral under it, with their step. */
function allTasks(i: InstanceTree): { task: Task; step: string | null }[] {
  const step = typeof i.vars?.["state"] === "string" ? i.vars["state"] : null;
  return [...i.tasks.map((task) => ({ task, step })), ...i.children.flatMap(allTasks)];
}

function TasksTable({ tasks }: { tasks: { task: Task; step: string | null }[] }) {
  return (
    <>
      <h2>Tasks</h2>
      {tasks.length === 0 ? (
        <p>No tasks yet.</p>
      ) : (
        <table className="instance-tasks">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Assignee</th>
              <th scope="col">State</th>
              <th scope="col">Completed by</th>
              <th scope="col">Completed</th>
            </tr>
          </thead>
          <tbody>
            {tasks.map(({ task: t, step }) => (
              <tr key={t.id}>
                <td>
                  <Link to={`/tasks/${t.id}`}>{step ?? t.definitionKey}</Link>
                </td>
                <td>{assigneeText(t.assignee)}</td>
                <td>
                  <span className={`badge status-${t.status}`}>{t.status}</span>
                </td>
                <td>{t.completedBy ?? "—"}</td>
                <td>{when(t.completedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function ChildrenList({ children }: { children: InstanceTree[] }) {
  if (children.length === 0) return null;
  return (
    <>
      <h2>Child instances</h2>
      <ul>
        {children.map((c) => (
          <li key={c.id}>
            <Link to={`/instances/${c.id}`}>
              {branchLabel(c) ?? c.definitionKey}
              {typeof c.vars?.["state"] === "string" && `, step ${c.vars["state"]}`}
            </Link>{" "}
            — {c.status}, started {when(c.createdAt)}
          </li>
        ))}
      </ul>
    </>
  );
}

function History({ instances }: { instances: InstanceTree[] }) {
  const entries = historyOf(instances);
  return (
    <>
      <h2>History</h2>
      {entries.length === 0 ? (
        <p>Nothing has happened yet.</p>
      ) : (
        <ol className="history">
          {entries.map((e, n) => (
            <li key={n}>
              <time dateTime={e.at}>{when(e.at)}</time> {e.who !== null && <strong>{e.who}</strong>}{" "}
              {e.what}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
