/** Login by a one-time code: ask for it with the user id, then type it in. */
import { useState, type FormEvent } from "react";
import { api, ApiProblem, setCsrfToken } from "./api.ts";
import { useSession } from "./session.tsx";
import { ErrorAlert } from "./problem-text.tsx";

export function LoginPage() {
  const { reload } = useSession();
  const [userId, setUserId] = useState("");
  const [code, setCode] = useState("");
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const ask = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api("/auth/code", { method: "POST", body: { userId } });
      setSent(true);
    } catch (err) {
      setError(err instanceof ApiProblem ? (err.detail ?? err.title) : String(err));
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api<{ csrfToken: string }>("/auth/verify", {
        method: "POST",
        body: { userId, code },
      });
      setCsrfToken(r.csrfToken);
      await reload();
    } catch (err) {
      setError(err instanceof ApiProblem ? (err.detail ?? err.title) : String(err));
    }
  };

  return (
    <main className="login">
      <h1>TaskFlow Console</h1>
      {!sent ? (
        <form onSubmit={(e) => void ask(e)} aria-label="Ask for a login code">
          <label htmlFor="login-user">User id</label>
          <input
            id="login-user"
            name="userId"
            autoComplete="username"
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
            required
          />
          <button type="submit">Send me a code</button>
        </form>
      ) : (
        <form onSubmit={(e) => void verify(e)} aria-label="Enter the login code">
          <p>A code was sent to {userId}. It is valid for 5 minutes.</p>
          <label htmlFor="login-code">Code</label>
          <input
            id="login-code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            required
          />
          <button type="submit">Log in</button>
          <button type="button" className="secondary" onClick={() => setSent(false)}>
            Another user
          </button>
        </form>
      )}
      <ErrorAlert error={error} />
    </main>
  );
}
