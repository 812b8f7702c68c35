/** The served_workflows table as Kysely sees it (see migrations/003-served-workflows.ts). */
import type { ColumnType } from "kysely";

export interface ServedWorkflowsTable {
  workflow: string;
  node_id: string;
  seen_at: ColumnType<number | string, number, number>;
}

/** A type, not an interface: Kysely's withTables wants an index-signature-compatible shape. */
export type ServedSchema = {
  served_workflows: ServedWorkflowsTable;
};
