/** One version of a definition: its facts, its diagram, its document; retract (admin, asked first). */
import { Link, useParams } from "react-router";
import { useState } from "react";
import { engine } from "../../api.ts";
import { DefinitionDiagram } from "../../diagram/definition-diagram.tsx";
import { hasRole, useSession } from "../../session.tsx";
import { InlineConfirm } from "./inline-confirm.tsx";
import type { DefinitionVersion } from "../../wire.ts";
import { formatTime, versionLabel } from "./format.ts";
import { ErrorAlert } from "../../problem-text.tsx";
import { useEngine } from "./use-engine.ts";

const enc = encodeURIComponent;

export function VersionPage() {
  const { key = "", version = "" } = useParams();
  const { session } = useSession();
  const path = `definitions/${enc(key)}/versions/${enc(version)}`;
  const read = useEngine<DefinitionVersion>(path);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const v = read.data;

  const retract = async () => {
    setActionError(undefined);
    try {
      await engine(`${path}/retract`, { method: "POST" });
      setNotice(`Version ${version} of ${key} is retracted: no new run starts on it.`);
      read.reload();
    } catch (e) {
      setActionError(e);
    }
  };

  return (
    <section>
      <p>
        <Link to="/definitions">All definitions</Link>
      </p>
      <h1>{v === undefined ? `${key} ${version}` : versionLabel(key, v.version)}</h1>
      <ErrorAlert error={read.error} />
      <ErrorAlert error={actionError} />
      {notice !== null && (
        <p role="status" className="ok">
          {notice}
        </p>
      )}
      {read.loading && v === undefined && <p aria-busy="true">Loading…</p>}
      {v !== undefined && (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <span className={`badge status-${v.status}`}>{v.status}</span>
            </dd>
            <dt>Published</dt>
            <dd>{formatTime(v.publishedAt)}</dd>
            <dt>By</dt>
            <dd>{v.createdBy}</dd>
          </dl>
          <p className="row">
            <Link to={`/definitions/${enc(key)}/diff?to=${v.version}`}>
              Compare with another version
            </Link>
            {v.status === "published" && hasRole(session, "admin") && (
              <InlineConfirm
                label="Retract"
                accessibleName={`Retract version ${v.version}`}
                question={`Retract ${versionLabel(key, v.version)}? No new run will start on it; runs on it finish.`}
                confirmLabel="Yes, retract"
                danger
                onConfirm={retract}
              />
            )}
          </p>
          <DefinitionDiagram definition={v.definition} title={versionLabel(key, v.version)} />
          <h2>Document</h2>
          <pre
            className="document"
            tabIndex={0}
            aria-label={`The document of ${versionLabel(key, v.version)}`}
          >
            {JSON.stringify(v.definition, null, 2)}
          </pre>
        </>
      )}
    </section>
  );
}
