/**
 * Sends a signal to the run: its name and a JSON payload (empty: no payload, null).
 * Text that is not JSON is refused on the field itself, before anything is sent.
 */
import { useId, useState, type FormEvent } from "react";
import { engine } from "../../api.ts";
import { problemText, ErrorAlert } from "../../problem-text.tsx";
import { segment } from "./path-segment.ts";

/** The payload as JSON, or the parser's complaint; empty text is no payload. */
export function parsePayload(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function SignalForm({ runId, onSent }: { runId: string; onSent: () => void }) {
  const id = useId();
  const [name, setName] = useState("");
  const [payload, setPayload] = useState("");
  const [payloadError, setPayloadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSent(null);
    setError(null);
    const parsed = parsePayload(payload);
    if (!parsed.ok) {
      setPayloadError(parsed.error);
      return;
    }
    setPayloadError(null);
    try {
      await engine(`runs/${segment(runId)}/signals/${segment(name)}`, {
        method: "POST",
        body: parsed.value,
      });
      setSent(name);
      onSent();
    } catch (err) {
      setError(problemText(err));
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-h`} className="signal-form">
      <h3 id={`${id}-h`}>Send a signal</h3>
      <label htmlFor={`${id}-name`}>Signal name</label>
      <input
        id={`${id}-name`}
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        maxLength={256}
      />
      <label htmlFor={`${id}-payload`}>Payload (JSON, optional)</label>
      <textarea
        id={`${id}-payload`}
        rows={4}
        value={payload}
        onChange={(e) => setPayload(e.target.value)}
        aria-invalid={payloadError !== null}
        aria-describedby={payloadError !== null ? `${id}-payload-error` : undefined}
      />
      {payloadError !== null && (
        <p id={`${id}-payload-error`} className="field-error">
          {payloadError}
        </p>
      )}
      <button type="submit">Send signal</button>
      <ErrorAlert error={error} />
      {sent !== null && (
        <p role="status" className="ok">
          Signal “{sent}” sent.
        </p>
      )}
    </form>
  );
}
