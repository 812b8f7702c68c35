/**
 * The path an instance of a versioned definition took, on its version's
 * diagram. What it is derived from (the instance answer has no state
 * history of its own):
 *
 * - the states passed and the current ones: the process's referrals — the
 *   interpreter makes one per `userTask` state it enters, with the state's
 *   name in the referral's `vars.state`; a referral still running is a
 *   current state, a completed one a passed state. States that make no
 *   referral (choice, call, timer, …) are marked only where the graph
 *   leaves one way through them (inferred-path.ts);
 * - the version: `?version=` when the link gives it; else, for operators,
 *   the interpreter's run (`vars.runId` of the process, GET runs/{id}: its
 *   input holds the pinned version); else the newest version published at
 *   or before the instance was created — the one a start without `version`
 *   is pinned to.
 */
import { useEffect, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { engine } from "../../api.ts";
import { DefinitionDiagram } from "../../diagram/definition-diagram.tsx";
import { definitionGraph } from "../../diagram/definition-graph.ts";
import { hasRole, useSession, type Session } from "../../session.tsx";
import type { DefinitionVersion, InstanceTree, Run, VersionSummary } from "../../wire.ts";
import { formatTime, versionLabel } from "./format.ts";
import { inferredStates } from "./inferred-path.ts";
import { ErrorAlert } from "../../problem-text.tsx";
import { useEngine } from "./use-engine.ts";

const enc = encodeURIComponent;

interface Visit {
  state: string;
  referralId: string;
  running: boolean;
  createdAt: string;
  who: string;
}

/** The referrals the interpreter made for user-task states, oldest first. */
function visitsOf(root: InstanceTree): Visit[] {
  const visits: Visit[] = [];
  const walk = (i: InstanceTree) => {
    const state = i.vars?.state;
    if (i.kind === "referral" && typeof state === "string") {
      const done = i.tasks.filter((t) => t.completedBy !== null).map((t) => t.completedBy);
      const open = i.tasks.filter((t) => t.status === "open" || t.status === "claimed");
      visits.push({
        state,
        referralId: i.id,
        running: i.status !== "completed",
        createdAt: i.createdAt,
        who:
          done.length > 0
            ? `done by ${done.join(", ")}`
            : `waiting for ${open.map((t) => t.assignee.id).join(", ") || "nobody"}`,
      });
    }
    i.children.forEach(walk);
  };
  walk(root);
  return visits.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

async function versionOf(
  instance: InstanceTree,
  given: string | null,
  session: Session | null,
): Promise<{ version: number; how: string }> {
  if (given !== null && /^[0-9]+$/.test(given))
    return { version: Number(given), how: "from the link" };
  const runId = instance.vars?.runId;
  if (hasRole(session, "operator") && typeof runId === "string") {
    const run = await engine<Run>(`runs/${enc(runId)}`);
    const pinned = (run.input as { version?: unknown } | null)?.version;
    if (typeof pinned === "number") return { version: pinned, how: "from its run" };
  }
  const { items } = await engine<{ items: VersionSummary[] }>(
    `definitions/${enc(instance.definitionKey)}/versions`,
  );
  const before = items
    .filter((v) => v.version > 0 && v.publishedAt !== null && v.publishedAt <= instance.createdAt)
    .sort((a, b) => b.version - a.version);
  const chosen = before[0];
  if (chosen === undefined)
    throw new Error("no version was published before this instance started");
  return { version: chosen.version, how: "the newest published when it started" };
}

export function InstancePathPage() {
  const { id = "" } = useParams();
  const [params] = useSearchParams();
  const { session } = useSession();
  const instance = useEngine<InstanceTree>(`instances/${enc(id)}`);
  const [doc, setDoc] = useState<{ v: DefinitionVersion; how: string } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const given = params.get("version");

  useEffect(() => {
    const i = instance.data;
    if (i === undefined) return;
    versionOf(i, given, session)
      .then(async ({ version, how }) => {
        const v = await engine<DefinitionVersion>(
          `definitions/${enc(i.definitionKey)}/versions/${version}`,
        );
        setDoc({ v, how });
      })
      .catch(setError);
  }, [instance.data, given, session]);

  const visits = useMemo(() => (instance.data ? visitsOf(instance.data) : []), [instance.data]);
  const { passed, current } = useMemo(() => {
    const graph = definitionGraph(doc?.v.definition);
    const idsNamed = (names: Set<string>) =>
      new Set(graph.states.filter((s) => names.has(s.name)).map((s) => s.id));
    const current = idsNamed(new Set(visits.filter((v) => v.running).map((v) => v.state)));
    const passed = idsNamed(new Set(visits.filter((v) => !v.running).map((v) => v.state)));
    const finished =
      instance.data?.status === "completed" || instance.data?.processState === "closed";
    const topLevel = visits
      .map((v) => v.state)
      .filter((name) => graph.states.some((s) => s.id === name));
    for (const id of inferredStates(graph, topLevel, finished))
      if (!current.has(id)) passed.add(id);
    return { passed, current };
  }, [doc, visits, instance.data]);

  const i = instance.data;
  return (
    <section>
      <h1>Path of instance {id}</h1>
      <ErrorAlert error={instance.error} />
      <ErrorAlert error={error} />
      {instance.loading && i === undefined && <p aria-busy="true">Loading…</p>}
      {i !== undefined && (
        <dl className="facts">
          <dt>Definition</dt>
          <dd>{i.definitionKey}</dd>
          <dt>Status</dt>
          <dd>{i.processState ?? i.status}</dd>
          <dt>Started</dt>
          <dd>
            {formatTime(i.createdAt)} by {i.startedBy}
          </dd>
          {doc !== undefined && (
            <>
              <dt>Version</dt>
              <dd>
                <Link to={`/definitions/${enc(i.definitionKey)}/versions/${doc.v.version}`}>
                  {versionLabel(i.definitionKey, doc.v.version)}
                </Link>{" "}
                ({doc.how})
              </dd>
            </>
          )}
        </dl>
      )}
      {i !== undefined && doc !== undefined && (
        <>
          <DefinitionDiagram
            definition={doc.v.definition}
            highlighted={passed}
            current={current}
            title={`${versionLabel(i.definitionKey, doc.v.version)}, with the states this instance passed`}
          />
          <h2>States entered</h2>
          {visits.length === 0 ? (
            <p>No user-task state was entered yet.</p>
          ) : (
            <ol className="visits">
              {visits.map((v) => (
                <li key={v.referralId}>
                  <strong>{v.state}</strong> — {formatTime(v.createdAt)}, {v.running ? "now; " : ""}
                  {v.who}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
