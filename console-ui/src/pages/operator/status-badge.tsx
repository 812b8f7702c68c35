/** A run's status as a coloured, worded badge (the word carries the meaning, not the colour). */
import type { RunStatus } from "../../wire.ts";

export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge status status-${status}`}>{status}</span>;
}
