/**
 * The login page offers the ways in this Console has (GET /auth/methods) and no
 * other: a one-time code (ask for it with the user id, then type it in), single
 * sign-on by OpenID Connect (a navigation to the provider and back), or, behind an
 * authenticating proxy, nothing to ask: the proxy names the user.
 */
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiProblem, setCsrfToken } from "./api.ts";
import { useSession } from "./session.tsx";
import { ErrorAlert } from "./problem-text.tsx";

interface LoginMethods {
  code: boolean;
  oidc: boolean;
  trustedHeader: boolean;
}

/** What the OpenID Connect callback put in the address when a login did not complete. */
const CALLBACK_ERRORS: Record<string, string> = {
  expired: "The single sign-on took too long or was already used. Try again.",
  refused: "The sign-in provider's answer was refused. Try again.",
  "unknown-user": "The sign-in provider named a user this Console does not know.",
};

function callbackError(): string | null {
  const reason = new URLSearchParams(window.location.search).get("loginError");
  if (reason === null) return null;
  return CALLBACK_ERRORS[reason] ?? "The single sign-on did not complete. Try again.";
}

export function LoginPage() {
  const [methods, setMethods] = useState<LoginMethods | null>(null);
  const [error, setError] = useState<string | null>(callbackError);
  useEffect(() => {
    api<LoginMethods>("/auth/methods").then(setMethods, (err: unknown) =>
      setError(err instanceof ApiProblem ? (err.detail ?? err.title) : String(err)),
    );
  }, []);

  return (
    <main className="login">
      <h1>TaskFlow Console</h1>
      {methods?.oidc && (
        <p>
          <a className="button" href="/console/api/auth/oidc/start">
            Log in with single sign-on
          </a>
        </p>
      )}
      {methods?.code && <CodeLogin onError={setError} />}
      {methods !== null && !methods.code && !methods.oidc && (
        <p role="status">
          Your sign-in proxy logs you in, and it did not name you on this request. Reload the page;
          if this stays, ask your administrator.
        </p>
      )}
      <ErrorAlert error={error} />
    </main>
  );
}

function CodeLogin({ onError }: { onError: (error: string | null) => void }) {
  const { reload } = useSession();
  const [userId, setUserId] = useState("");
  const [code, setCode] = useState("");
  const [sent, setSent] = useState(false);
  const setError = onError;

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
    <>
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
    </>
  );
}
