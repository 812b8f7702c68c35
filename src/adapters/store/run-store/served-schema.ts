/** The served_workflows and served_steps tables as Kysely sees them (migrations 003, 016). */
import type { ColumnType } from "kysely";

export interface ServedWorkflowsTable {
  workflow: string;
  node_id: string;
  seen_at: ColumnType<number | string, number, number>;
}

/** served_steps (migrations/016-served-steps.ts). */
export interface ServedStepsTable {
  step: string;
  node_id: string;
  seen_at: ColumnType<number | string, number, number>;
}

/** A type, not an interface: Kysely's withTables wants an index-signature-compatible shape. */
export type ServedSchema = {
  served_workflows: ServedWorkflowsTable;
  served_steps: ServedStepsTable;
};
