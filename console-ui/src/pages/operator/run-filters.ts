/**
 * The runs list's filters, kept in the page's address (?status=&workflow=…) so a filtered
 * list can be bookmarked and shared, and turned into GET /v1/runs's query.
 */
import type { RunStatus } from "../../wire.ts";
import { RUN_STATUSES } from "./run-status.ts";

export type RunOrder = "newest" | "oldest";

export interface RunFilters {
  /** Newest first unless the address asks for oldest (GET /v1/runs's order). */
  order: RunOrder;
  status: RunStatus | "";
  workflow: string;
  startedBy: string;
  /** As the datetime-local field holds it: local time, no offset. */
  createdAfter: string;
  createdBefore: string;
}

export const FILTER_KEYS = [
  "status",
  "workflow",
  "startedBy",
  "createdAfter",
  "createdBefore",
] as const;

export function filtersFrom(params: URLSearchParams): RunFilters {
  const status = params.get("status") ?? "";
  return {
    order: params.get("order") === "oldest" ? "oldest" : "newest",
    status: RUN_STATUSES.find((s) => s === status) ?? "",
    workflow: params.get("workflow") ?? "",
    startedBy: params.get("startedBy") ?? "",
    createdAfter: params.get("createdAfter") ?? "",
    createdBefore: params.get("createdBefore") ?? "",
  };
}

export function paramsFrom(f: RunFilters): URLSearchParams {
  const p = new URLSearchParams();
  // The default order stays out of the address, as unset filters do.
  if (f.order === "oldest") p.set("order", "oldest");
  for (const k of FILTER_KEYS) if (f[k].trim() !== "") p.set(k, f[k].trim());
  return p;
}

/** A datetime-local value is the browser's local time; the engine wants an offset, so UTC. */
function toInstant(local: string): string {
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

/** The engine's query: the filters set, the times with an offset, the page's cursor. */
export function runsQuery(f: RunFilters, cursor: string | null, limit: number): string {
  const p = paramsFrom(f);
  for (const k of ["createdAfter", "createdBefore"] as const) {
    const v = p.get(k);
    if (v !== null) p.set(k, toInstant(v));
  }
  p.set("order", f.order);
  p.set("limit", String(limit));
  if (cursor !== null) p.set("cursor", cursor);
  return `runs?${p.toString()}`;
}
