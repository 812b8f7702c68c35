/** The operator area's pages: durable runs and their timelines, and cache repairs. */
import type { AreaPage } from "../../area.ts";
import "./operator.css";
import { RepairsPage } from "./repairs-page.tsx";
import { RunPage } from "./run-page.tsx";
import { RunsPage } from "./runs-page.tsx";

export const operatorPages: AreaPage[] = [
  { path: "runs", nav: "Runs", role: "operator", element: <RunsPage /> },
  { path: "runs/:id", role: "operator", element: <RunPage /> },
  { path: "repairs", nav: "Repairs", role: "operator", element: <RepairsPage /> },
];
