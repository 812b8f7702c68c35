/**
 * Who is logged in, and their roles (user ⊂ operator ⊂ admin), from GET /session.
 * The roles only decide what the page shows: the server checks every call again.
 */
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { api, ApiProblem, setCsrfToken, whenLoggedOut } from "./api.ts";

export type Role = "user" | "operator" | "admin";

export interface Session {
  userId: string;
  roles: Role[];
  /** The directory's groups of the user (none with the open directory). */
  groups: string[];
  /** The one tenant this Console acts in. */
  tenant: string;
  /** "open": no users nor groups configured, so everyone is a plain user (roles-hint.tsx). */
  directory: "open" | "static";
}

interface SessionState {
  session: Session | null;
  loading: boolean;
  /** After a login: read the session again. */
  reload: () => Promise<void>;
  logout: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [loading, setLoading] = useState(true);

  const reload = useCallback(async () => {
    try {
      const s = await api<Session & { csrfToken: string | null }>("/session");
      setCsrfToken(s.csrfToken);
      const { userId, roles, groups, tenant, directory } = s;
      setSession({ userId, roles, groups, tenant, directory });
    } catch (e) {
      if (!(e instanceof ApiProblem) || e.status !== 401) throw e;
      setSession(null);
    } finally {
      setLoading(false);
    }
  }, []);

  const logout = useCallback(async () => {
    await api("/auth/logout", { method: "POST", body: {} });
    setCsrfToken(null);
    setSession(null);
  }, []);

  useEffect(() => {
    whenLoggedOut(() => setSession(null));
    void reload();
  }, [reload]);

  return (
    <SessionContext.Provider value={{ session, loading, reload, logout }}>
      {children}
    </SessionContext.Provider>
  );
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (s === null) throw new Error("useSession outside SessionProvider");
  return s;
}

export const hasRole = (s: Session | null, role: Role): boolean =>
  s !== null && s.roles.includes(role);
