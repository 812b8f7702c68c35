/** The people area's pages: the work of a plain user. */
import type { AreaPage } from "../../area.ts";
import { InboxPage } from "./inbox-page.tsx";
import { InstancePage } from "./instance-page.tsx";
import "./people.css";
import { ProcessesPage } from "./processes-page.tsx";
import { TaskPage } from "./task-page.tsx";

export const peoplePages: AreaPage[] = [
  { path: "inbox", nav: "Inbox", role: "user", element: <InboxPage /> },
  { path: "processes", nav: "My processes", role: "user", element: <ProcessesPage /> },
  { path: "tasks/:id", role: "user", element: <TaskPage /> },
  { path: "instances/:id", role: "user", element: <InstancePage /> },
];
