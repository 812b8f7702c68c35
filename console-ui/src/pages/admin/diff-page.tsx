/** What changed between two versions of a definition (GET definitions/{key}/diff), both picked in the page. */
import { useState, type FormEvent } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import type { DefinitionDiff, VersionSummary } from "../../wire.ts";
import { jsonText, versionLabel } from "./format.ts";
import { ErrorAlert } from "../../problem-text.tsx";
import { useEngine } from "./use-engine.ts";

const enc = encodeURIComponent;

export function DiffPage() {
  const { key = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const versions = useEngine<{ items: VersionSummary[] }>(`definitions/${enc(key)}/versions`);
  const numbers = (versions.data?.items ?? []).map((v) => v.version).sort((a, b) => b - a);
  // Without a choice in the URL: the two newest versions.
  const from = params.get("from") ?? selectorOf(numbers[1] ?? numbers[0]);
  const to = params.get("to") ?? selectorOf(numbers[0]);
  const diffPath =
    from !== null && to !== null
      ? `definitions/${enc(key)}/diff?from=${enc(from)}&to=${enc(to)}`
      : null;
  const diff = useEngine<DefinitionDiff>(diffPath);

  return (
    <section>
      <p>
        <Link to="/definitions">All definitions</Link>
      </p>
      <h1>Compare versions of {key}</h1>
      <ErrorAlert error={versions.error} />
      {versions.data !== undefined && (
        <PickVersions
          key={`${from}-${to}`}
          numbers={numbers}
          definitionKey={key}
          from={from}
          to={to}
          onPick={(f, t) => setParams({ from: f, to: t })}
        />
      )}
      <ErrorAlert error={diff.error} />
      {diff.data !== undefined && diffPath !== null && (
        <Changes definitionKey={key} diff={diff.data} />
      )}
    </section>
  );
}

/** The diff route's name of a version: its number, or `draft` for 0; null for none. */
function selectorOf(n: number | undefined): string | null {
  if (n === undefined) return null;
  return n === 0 ? "draft" : String(n);
}

interface PickProps {
  /** Newest first. */
  numbers: number[];
  definitionKey: string;
  from: string | null;
  to: string | null;
  onPick: (from: string, to: string) => void;
}

/** Two selects, starting at the pair compared now. */
function PickVersions({ numbers, definitionKey, from, to, onPick }: PickProps) {
  const [f, setF] = useState(from ?? "");
  const [t, setT] = useState(to ?? "");

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onPick(f, t);
  };
  if (numbers.length === 0) return <p>{definitionKey} has no versions.</p>;
  const options = numbers.map((n) => (
    <option key={n} value={selectorOf(n) ?? ""}>
      {versionLabel(definitionKey, n)}
    </option>
  ));
  return (
    <form className="inline" onSubmit={submit} aria-label="Versions to compare">
      <label htmlFor="diff-from">From</label>
      <select id="diff-from" value={f} onChange={(e) => setF(e.target.value)}>
        {options}
      </select>
      <label htmlFor="diff-to">To</label>
      <select id="diff-to" value={t} onChange={(e) => setT(e.target.value)}>
        {options}
      </select>
      <button type="submit">Compare</button>
    </form>
  );
}

function Changes({ definitionKey, diff }: { definitionKey: string; diff: DefinitionDiff }) {
  const title = `${versionLabel(definitionKey, diff.from)} → ${versionLabel(definitionKey, diff.to)}`;
  return (
    <section aria-labelledby="changes-heading">
      <h2 id="changes-heading">
        {diff.changes.length} change{diff.changes.length === 1 ? "" : "s"}: {title}
      </h2>
      {diff.changes.length > 0 && (
        <table className="changes">
          <caption className="visually-hidden">Changes from {title}</caption>
          <thead>
            <tr>
              <th scope="col">Pointer</th>
              <th scope="col">Change</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
            </tr>
          </thead>
          <tbody>
            {diff.changes.map((c) => (
              <tr key={`${c.pointer}-${c.op}`} className={`op-${c.op}`}>
                <td>
                  <code>{c.pointer}</code>
                </td>
                <td>{c.op}</td>
                <td>
                  <code>{jsonText(c.from)}</code>
                </td>
                <td>
                  <code>{jsonText(c.to)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
