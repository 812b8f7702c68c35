/** Logged out: the login picker. Logged in: HR's terminations (for HR) and everyone's tasks. */
import { useEffect, useState } from "react";
import { api, setCsrfToken, whenSignedOut, type SessionInfo, type User } from "./api.ts";
import { LoginPage } from "./login-page.tsx";
import { Terminations } from "./terminations.tsx";
import { TaskList } from "./task-list.tsx";

export function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);

  useEffect(() => {
    whenSignedOut(() => setUser(null));
    api<SessionInfo>("/session")
      .then((s) => {
        setCsrfToken(s.csrfToken);
        setUser(s.user);
      })
      .catch(() => setUser(null));
  }, []);

  const logout = async () => {
    await api("/logout", "POST");
    setUser(null);
  };

  if (user === undefined) return <p className="loading">Loading…</p>;
  if (user === null) return <LoginPage onLogin={setUser} />;
  return (
    <>
      <header className="top">
        <span className="brand">Offboarding · {user.company}</span>
        <span className="who">{user.name}</span>
        <button type="button" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      <main>
        <h1>Employee terminations</h1>
        {user.role === "hr" && <Terminations />}
        <TaskList />
      </main>
    </>
  );
}
