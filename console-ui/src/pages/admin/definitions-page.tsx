/** Definitions with their versions: each version links to its page (document, diagram), each key to its diff. */
import { Link } from "react-router";
import { ApiProblem, engine } from "../../api.ts";
import { useEffect, useState } from "react";
import type { Definition, Page, VersionSummary } from "../../wire.ts";
import { ErrorAlert } from "../../problem-text.tsx";
import { useEngine } from "./use-engine.ts";
import { formatTime, versionLabel } from "./format.ts";

const enc = encodeURIComponent;

export function DefinitionsPage() {
  const list = useEngine<Page<Definition>>("definitions?limit=100");
  return (
    <section>
      <h1>Definitions</h1>
      <p className="toolbar">
        <Link to="/definitions/publish">Publish a version</Link>
      </p>
      <ErrorAlert error={list.error} />
      {list.loading && <p aria-busy="true">Loading…</p>}
      {list.data?.items.length === 0 && <p>No definitions yet.</p>}
      {list.data?.items.map((d) => (
        <DefinitionVersions key={d.key} definition={d} />
      ))}
      {list.data?.nextCursor != null && <p>Only the first 100 definitions are shown.</p>}
    </section>
  );
}

function DefinitionVersions({ definition }: { definition: Definition }) {
  const [versions, setVersions] = useState<VersionSummary[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const key = definition.key;

  useEffect(() => {
    engine<{ items: VersionSummary[] }>(`definitions/${enc(key)}/versions`)
      .then((r) => setVersions(r.items))
      // A definition made by a plain POST /v1/processes has no versions.
      .catch((e: unknown) =>
        e instanceof ApiProblem && e.status === 404 ? setVersions([]) : setError(e),
      );
  }, [key]);

  const published = versions?.filter((v) => v.version > 0) ?? [];
  return (
    <section className="panel" aria-labelledby={`def-${definition.id}`}>
      <h2 id={`def-${definition.id}`}>
        {definition.name} <code>{key}</code>
      </h2>
      <ErrorAlert error={error} />
      {versions !== undefined && versions.length === 0 && (
        <p>No versions: not a versioned definition.</p>
      )}
      {versions !== undefined && versions.length > 0 && (
        <table>
          <caption className="visually-hidden">Versions of {key}</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Published</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version}>
                <td>
                  <Link
                    to={`/definitions/${enc(key)}/versions/${v.version === 0 ? "draft" : v.version}`}
                  >
                    {versionLabel(key, v.version)}
                  </Link>
                </td>
                <td>
                  <span className={`badge status-${v.status}`}>{v.status}</span>
                </td>
                <td>{formatTime(v.publishedAt)}</td>
                <td>{v.createdBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="row">
        {published.length >= 2 && (
          <Link to={`/definitions/${enc(key)}/diff`}>Compare versions of {key}</Link>
        )}
        <Link to={`/definitions/publish?key=${enc(key)}`}>Publish a new version of {key}</Link>
      </p>
    </section>
  );
}
