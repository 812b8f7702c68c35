/**
 * A button whose action asks first, in the page rather than window.confirm
 * (which a screen reader and a test both handle worse): the first click shows
 * the question with "Yes" and "Cancel", focus moves to the question.
 */
import { useEffect, useRef, useState, type ReactNode } from "react";

interface Props {
  /** The button's text, e.g. "Revoke". */
  label: string;
  /** Its accessible name when the text alone is ambiguous in a table ("Revoke key ci"). */
  accessibleName?: string;
  question: ReactNode;
  /** The confirming button's text, e.g. "Yes, revoke". */
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  danger?: boolean;
}

export function InlineConfirm(p: Props) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const questionRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (asking) questionRef.current?.focus();
  }, [asking]);

  const confirm = async () => {
    setBusy(true);
    try {
      await p.onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };

  if (!asking) {
    return (
      <button
        type="button"
        className={p.danger === true ? "danger" : "secondary"}
        aria-label={p.accessibleName}
        onClick={() => setAsking(true)}
      >
        {p.label}
      </button>
    );
  }
  return (
    <div
      className="inline-confirm"
      role="group"
      aria-label={p.accessibleName ?? p.label}
      ref={questionRef}
      tabIndex={-1}
    >
      <span>{p.question}</span>
      <button
        type="button"
        className={p.danger === true ? "danger" : undefined}
        disabled={busy}
        onClick={() => void confirm()}
      >
        {p.confirmLabel}
      </button>
      <button type="button" className="secondary" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}
