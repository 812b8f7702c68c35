/** The router: every area's pages under one layout; a page above the user's roles is not routed. */
import { useMemo } from "react";
import { createBrowserRouter, Navigate, RouterProvider } from "react-router";
import type { AreaPage } from "./area.ts";
import { Layout } from "./layout.tsx";
import { LoginPage } from "./login-page.tsx";
import { RolesHint } from "./roles-hint.tsx";
import { adminPages } from "./pages/admin/index.tsx";
import { operatorPages } from "./pages/operator/index.tsx";
import { peoplePages } from "./pages/people/index.tsx";
import { hasRole, useSession, type Session } from "./session.tsx";

const ALL_PAGES: AreaPage[] = [...peoplePages, ...operatorPages, ...adminPages];

function routerFor(session: Session) {
  const pages = ALL_PAGES.filter((p) => hasRole(session, p.role));
  const home = pages.find((p) => p.nav !== undefined)?.path ?? "";
  return createBrowserRouter(
    [
      {
        path: "/",
        element: <Layout pages={pages} />,
        children: [
          { index: true, element: <Navigate to={`/${home}`} replace /> },
          ...pages.map((p) => ({ path: p.path, element: p.element })),
          { path: "*", element: <NotFound /> },
        ],
      },
    ],
    { basename: "/console" },
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>There is no such page, or your role does not include it.</p>
      <RolesHint />
    </section>
  );
}

export function App() {
  const { session, loading } = useSession();
  // One router per login: a new one would drop the page's state on every render.
  const router = useMemo(() => (session === null ? null : routerFor(session)), [session]);
  if (loading) return <p aria-busy="true">Loading…</p>;
  if (router === null) return <LoginPage />;
  return <RouterProvider router={router} />;
}
