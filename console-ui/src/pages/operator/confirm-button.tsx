/**
 * A button whose action runs only after a confirmation in a modal <dialog> (the browser's
 * own: focus moves in and is trapped, Escape closes it). An action that fails keeps the
 * dialog open with the server's reason.
 */
import { useId, useRef, useState, type ReactNode } from "react";
import { problemText, ErrorAlert } from "../../problem-text.tsx";

interface Props {
  label: string;
  /** The dialog's heading. */
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  danger?: boolean;
  disabled?: boolean;
}

export function ConfirmButton(p: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const open = () => {
    setError(null);
    dialog.current?.showModal();
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await p.onConfirm();
      dialog.current?.close();
    } catch (e) {
      setError(problemText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className={p.danger === true ? "danger" : undefined}
        onClick={open}
        disabled={p.disabled}
      >
        {p.label}
      </button>
      <dialog ref={dialog} aria-labelledby={headingId} className="confirm">
        <h2 id={headingId}>{p.title}</h2>
        {p.children}
        <ErrorAlert error={error} />
        <div className="dialog-buttons">
          <button
            type="button"
            className={p.danger === true ? "danger" : undefined}
            onClick={() => void confirm()}
            disabled={busy}
          >
            {p.confirmLabel}
          </button>
          <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
            Keep it
          </button>
        </div>
      </dialog>
    </>
  );
}
