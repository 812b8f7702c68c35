/** A page of one area of the Console (people, operator, admin), as the router and the nav see it. */
import type { ReactNode } from "react";
import type { Role } from "./session.tsx";

export interface AreaPage {
  /** Under /console, without the leading slash: "inbox", "runs/:id". */
  path: string;
  element: ReactNode;
  /** The nav link's label; none: reachable only by links (a detail page). */
  nav?: string;
  /** The least role that sees the page; the server checks its API calls again. */
  role: Role;
}
