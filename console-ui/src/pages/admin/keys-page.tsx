/**
 * Stored API keys (docs/api-keys.md): the list (never a secret), create,
 * rotate and revoke. A new key's secret is kept only in this page's memory
 * until dismissed: it is in no URL, no storage, and gone after a reload. Only the
 * Console's tenant's keys: the server lists, mints, rotates and revokes no other.
 */
import { useState, type FormEvent } from "react";
import { engine } from "../../api.ts";
import { useSession } from "../../session.tsx";
import { InlineConfirm } from "./inline-confirm.tsx";
import type { ApiKeyListing, CreatedApiKey } from "../../wire.ts";
import { formatTime } from "./format.ts";
import { ErrorAlert } from "../../problem-text.tsx";
import { SecretPanel } from "./secret-panel.tsx";
import { useEngine } from "./use-engine.ts";

export function KeysPage() {
  const tenant = useSession().session?.tenant ?? "";
  const list = useEngine<{ items: ApiKeyListing[] }>("keys");
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);

  const act = async (what: () => Promise<void>) => {
    setError(undefined);
    setNotice(null);
    try {
      await what();
    } catch (e) {
      setError(e);
    } finally {
      list.reload();
    }
  };

  const revoke = (k: ApiKeyListing) =>
    act(async () => {
      await engine(`keys/${encodeURIComponent(k.id)}/revoke`, { method: "POST" });
      setNotice(`Key ${k.name} is revoked; nodes refuse it within 5 seconds.`);
    });
  const rotate = (k: ApiKeyListing) =>
    act(async () => {
      setCreated(
        await engine<CreatedApiKey>(`keys/${encodeURIComponent(k.id)}/rotate`, { method: "POST" }),
      );
    });

  return (
    <section>
      <h1>API keys</h1>
      <p>
        Keys for the engine&apos;s REST API, stored hashed: the keys of tenant{" "}
        <strong>{tenant}</strong>, the tenant of this Console. A key created here acts for that
        tenant only.
      </p>
      {created !== null && <SecretPanel created={created} onDone={() => setCreated(null)} />}
      <CreateKeyForm onCreated={(k) => void act(() => Promise.resolve(setCreated(k)))} />
      <ErrorAlert error={error} />
      {notice !== null && (
        <p role="status" className="ok">
          {notice}
        </p>
      )}
      <h2>Stored keys</h2>
      <ErrorAlert error={list.error} />
      {list.data?.items.length === 0 && <p>No keys are stored.</p>}
      {list.data !== undefined && list.data.items.length > 0 && (
        <table className="keys">
          <caption className="visually-hidden">Stored API keys, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Tenant</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">Id</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td>{k.name}</td>
                <td>{k.tenant ?? "any tenant"}</td>
                <td>{formatTime(k.createdAt)}</td>
                <td>{k.expiresAt === null ? "never" : formatTime(k.expiresAt)}</td>
                <td>
                  <span className={`badge key-${k.state}`}>{k.state}</span>
                </td>
                <td>
                  <code>{k.id}</code>
                </td>
                <td className="row">
                  {k.state === "live" && (
                    <>
                      <InlineConfirm
                        label="Rotate"
                        accessibleName={`Rotate key ${k.name}`}
                        question={`Rotate ${k.name}? A new key replaces it and it is revoked.`}
                        confirmLabel="Yes, rotate"
                        onConfirm={() => rotate(k)}
                      />
                      <InlineConfirm
                        label="Revoke"
                        accessibleName={`Revoke key ${k.name}`}
                        question={`Revoke ${k.name}? Whatever uses it stops working.`}
                        confirmLabel="Yes, revoke"
                        danger
                        onConfirm={() => revoke(k)}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (k: CreatedApiKey) => void }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const body: Record<string, string> = { name };
      // A date means the end of that day, in the browser's time zone.
      if (expires !== "") body.expiresAt = new Date(`${expires}T23:59:59`).toISOString();
      onCreated(await engine<CreatedApiKey>("keys", { method: "POST", body }));
      setName("");
      setExpires("");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="panel create-key"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="create-key-heading"
    >
      <h2 id="create-key-heading">Create a key</h2>
      <label htmlFor="key-name">Name</label>
      <input
        id="key-name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        maxLength={128}
        required
      />
      <label htmlFor="key-expires">Expires on (empty: never)</label>
      <input
        id="key-expires"
        type="date"
        value={expires}
        onChange={(e) => setExpires(e.target.value)}
      />
      <button type="submit" disabled={busy}>
        Create key
      </button>
      <ErrorAlert error={error} />
    </form>
  );
}
