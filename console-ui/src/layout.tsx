/** The frame of every page: a skip link, the nav of what this user's roles see, the page. */
import { NavLink, Outlet } from "react-router";
import type { AreaPage } from "./area.ts";
import { hasRole, useSession } from "./session.tsx";

export function Layout({ pages }: { pages: AreaPage[] }) {
  const { session, logout } = useSession();
  const links = pages.filter((p) => p.nav !== undefined && hasRole(session, p.role));
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">TaskFlow</span>
        <nav aria-label="Main">
          <ul>
            {links.map((p) => (
              <li key={p.path}>
                <NavLink to={`/${p.path}`}>{p.nav}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">
          {session?.userId} ({session?.roles.at(-1)}) · tenant {session?.tenant}
          <button type="button" className="secondary" onClick={() => void logout()}>
            Log out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
