/**
 * Publish a new version from a JSON definition typed (or pasted) into the
 * page. With ?key=, the text starts as that key's latest version. A refused
 * definition lists every finding at its JSON pointer, as the engine's
 * validator reports them.
 */
import { useEffect, useId, useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ApiProblem, engine } from "../../api.ts";
import type { DefinitionVersion } from "../../wire.ts";
import { problemText } from "../../problem-text.tsx";

const enc = encodeURIComponent;

interface Finding {
  pointer: string;
  reason: string;
}

/** The document's `key`, or an error for people. */
function parseDefinition(text: string): { doc: Record<string, unknown>; key: string } | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return `The text is not JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return "The definition must be a JSON object.";
  }
  const key = (doc as Record<string, unknown>).key;
  if (typeof key !== "string" || key === "") return 'The definition needs a "key" (a string).';
  return { doc: doc as Record<string, unknown>, key };
}

/** Every finding of the problem's `errors` (two at one pointer stay two), else its fields. */
function findingsOf(p: ApiProblem): Finding[] {
  const errors = (p.body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors)) {
    return errors.map((e: { pointer?: unknown; reason?: unknown }) => ({
      pointer: typeof e.pointer === "string" ? e.pointer : "",
      reason: typeof e.reason === "string" ? e.reason : "invalid",
    }));
  }
  return [...p.fields].map(([pointer, reason]) => ({ pointer, reason }));
}

export function PublishPage() {
  const [params] = useSearchParams();
  const startKey = params.get("key");
  const navigate = useNavigate();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [findings, setFindings] = useState<Finding[]>([]);
  const [busy, setBusy] = useState(false);
  const hintId = useId();
  const errorId = useId();

  useEffect(() => {
    if (startKey === null) return;
    engine<DefinitionVersion>(`definitions/${enc(startKey)}/versions/latest`)
      .then((v) => {
        const { version: _version, ...doc } = v.definition as Record<string, unknown>;
        setText((t) => (t === "" ? JSON.stringify(doc, null, 2) : t));
      })
      .catch(() => undefined);
  }, [startKey]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setFindings([]);
    const parsed = parseDefinition(text);
    if (typeof parsed === "string") return setError(parsed);
    setBusy(true);
    try {
      const r = await engine<{ key: string; version: number }>(
        `definitions/${enc(parsed.key)}/publish`,
        { method: "POST", body: parsed.doc },
      );
      void navigate(`/definitions/${enc(r.key)}/versions/${r.version}`);
    } catch (err) {
      setError(problemText(err));
      if (err instanceof ApiProblem) setFindings(findingsOf(err));
    } finally {
      setBusy(false);
    }
  };

  const invalid = error !== null;
  return (
    <section>
      <p>
        <Link to="/definitions">All definitions</Link>
      </p>
      <h1>Publish a definition version</h1>
      <form className="publish" onSubmit={(e) => void submit(e)} aria-label="Publish a definition">
        <label htmlFor="definition-text">Definition (JSON)</label>
        <p id={hintId} className="hint">
          A whole definition (docs/definitions.md). Its <code>key</code> names the definition; the
          new version is the key&apos;s highest number + 1. The latest version&apos;s definition
          again, unchanged, makes no new version: its page opens.
        </p>
        <textarea
          id="definition-text"
          rows={24}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-describedby={invalid ? `${hintId} ${errorId}` : hintId}
          aria-invalid={invalid}
          required
        />
        <button type="submit" disabled={busy}>
          Publish
        </button>
      </form>
      {invalid && (
        <div role="alert" id={errorId} className="error">
          <p>{error}</p>
          {findings.length > 0 && (
            <>
              <h2>Validation errors</h2>
              <ul className="findings">
                {findings.map((f, i) => (
                  <li key={`${i}-${f.pointer}`}>
                    <code>{f.pointer === "" ? "/" : f.pointer}</code>: {f.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
