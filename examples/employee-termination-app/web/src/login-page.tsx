/**
 * Demo login: pick one of the demo users. There is no password: this page
 * stands in for a real sign-in (SSO, one-time codes), and says so.
 */
import { useEffect, useState, type FormEvent } from "react";
import { api, messageOf, setCsrfToken, type SessionInfo, type User } from "./api.ts";

export function LoginPage({ onLogin }: { onLogin: (u: User) => void }) {
  const [users, setUsers] = useState<User[]>([]);
  const [userId, setUserId] = useState("");
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<{ items: User[] }>("/demo-users")
      .then((r) => setUsers(r.items))
      .catch((e: unknown) => setError(messageOf(e)));
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const s = await api<SessionInfo>("/login", "POST", { userId });
      setCsrfToken(s.csrfToken);
      onLogin(s.user);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <main className="login">
      <h1>Employee terminations</h1>
      <p className="note">
        Demo sign-in: pick a user. There is no password; a real product signs people in here.
      </p>
      <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
        <label htmlFor="login-user">User</label>
        <select id="login-user" value={userId} onChange={(e) => setUserId(e.target.value)} required>
          <option value="">Choose…</option>
          {users.map((u) => (
            <option key={u.id} value={u.id}>
              {u.id} — {u.name}, {u.company}
            </option>
          ))}
        </select>
        <button type="submit">Sign in</button>
      </form>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </main>
  );
}
