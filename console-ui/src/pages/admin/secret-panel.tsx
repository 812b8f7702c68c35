/**
 * A new API key, shown this once: only its hash is stored, so once the panel
 * is dismissed (or the page reloaded) nobody can show it again. A copy button,
 * and the text selectable by hand where the clipboard is refused.
 */
import { useEffect, useRef, useState } from "react";
import type { CreatedApiKey } from "../../wire.ts";

interface Props {
  created: CreatedApiKey;
  onDone: () => void;
}

export function SecretPanel({ created, onDone }: Props) {
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    headingRef.current?.focus();
  }, [created.id]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  };

  return (
    <section className="panel secret-panel" aria-labelledby="secret-heading">
      <h2 id="secret-heading" ref={headingRef} tabIndex={-1}>
        {created.replaces === undefined ? "New API key" : "Rotated API key"}: {created.name}
      </h2>
      <p className="warning">
        <strong>Copy this key now.</strong> It is shown this once: only its hash is stored, and
        nobody can show it again. Keep it in your backend&apos;s secret store.
      </p>
      {created.replaces !== undefined && (
        <p>The previous key ({created.replaces}) is revoked; nodes refuse it within 5 seconds.</p>
      )}
      <label htmlFor="new-key-secret">The key</label>
      <input
        id="new-key-secret"
        className="secret"
        readOnly
        value={created.key}
        onFocus={(e) => e.currentTarget.select()}
      />
      <div className="row">
        <button type="button" onClick={() => void copy()}>
          Copy the key
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
      <p role="status">
        {copied === "yes" && "Copied to the clipboard."}
        {copied === "failed" &&
          "The browser refused the clipboard: select the key and copy it by hand."}
      </p>
    </section>
  );
}
