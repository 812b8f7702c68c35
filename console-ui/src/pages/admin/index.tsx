/** The admin area's pages; the instance path page is for every user (its reads are). */
import type { AreaPage } from "../../area.ts";
import "./admin.css";
import { DefinitionsPage } from "./definitions-page.tsx";
import { DiffPage } from "./diff-page.tsx";
import { InstancePathPage } from "./instance-path-page.tsx";
import { KeysPage } from "./keys-page.tsx";
import { PublishPage } from "./publish-page.tsx";
import { VersionPage } from "./version-page.tsx";

export const adminPages: AreaPage[] = [
  { path: "definitions", element: <DefinitionsPage />, nav: "Definitions", role: "admin" },
  { path: "definitions/publish", element: <PublishPage />, role: "admin" },
  { path: "definitions/:key/versions/:version", element: <VersionPage />, role: "admin" },
  { path: "definitions/:key/diff", element: <DiffPage />, role: "admin" },
  { path: "instances/:id/path", element: <InstancePathPage />, role: "user" },
  { path: "keys", element: <KeysPage />, nav: "API keys", role: "admin" },
];
