/**
 * The tables as Kysely sees them (snake_case columns). Times are epoch
 * milliseconds in BIGINT, which pg returns as a string — hence `number | string`
 * on the select side; row-mapping.ts converts. JSON documents are text.
 */
import type { ColumnType, Generated } from "kysely";

type Millis = ColumnType<number | string, number, number>;
type NullableMillis = ColumnType<number | string | null, number | null, number | null>;

export interface DefinitionsTable {
  tenant_id: string;
  id: string;
  key: string;
  name: string;
  created_at: Millis;
}

export interface InstancesTable {
  tenant_id: string;
  id: string;
  kind: string;
  definition_id: string;
  definition_key: string;
  parent_instance_id: string | null;
  root_instance_id: string;
  status: string;
  process_state: string | null;
  vars: string;
  started_by: string;
  created_at: Millis;
  completed_at: NullableMillis;
  on_all_completed: string | null;
  joined_at: NullableMillis;
}

export interface TasksTable {
  tenant_id: string;
  id: string;
  instance_id: string;
  root_instance_id: string;
  definition_key: string;
  assignee_kind: string;
  assignee_id: string;
  assigned_by: string;
  status: string;
  claimed_by: string | null;
  claimed_at: NullableMillis;
  completed_by: string | null;
  completed_at: NullableMillis;
  vars: string | null;
  created_at: Millis;
  title: string | null;
  description: string | null;
  priority: ColumnType<number, number | undefined, number>;
  due_at: NullableMillis;
  follow_up_at: NullableMillis;
  /** JSON: the form's schema and hints, `{ schema, ui }` (row-mapping.ts). */
  form: string | null;
  /** JSON: the named actions and whether one is required, `{ required, list }`. */
  actions: string | null;
  /** What the completion chose. */
  action: string | null;
  comment: string | null;
  /** The last change, as its use case decided it: what a trigger copies to task_events. */
  change_kind: ColumnType<string, string | undefined, string>;
  changed_by: string | null;
  changed_at: NullableMillis;
  change_reason: string | null;
  /** JSON: the four-eyes rule, `{ users, starter, earlierCompleters }`. */
  exclusions: string | null;
  /** Whom a delegated task goes back to; `pending` or `resolved` (domain/task-delegation.ts). */
  owner: string | null;
  delegation: string | null;
}

export interface TaskEventsTable {
  id: Generated<number | string>;
  tenant_id: string;
  task_id: string;
  instance_id: string;
  root_instance_id: string;
  type: string;
  actor: string | null;
  at: Millis;
  reason: string | null;
  status: string;
  assignee_kind: string;
  assignee_id: string;
  claimed_by: string | null;
  action: string | null;
  comment: string | null;
}

export interface DefinitionVersionsTable {
  tenant_id: string;
  key: string;
  version: number;
  status: string;
  body: string;
  created_at: Millis;
  published_at: NullableMillis;
  created_by: string;
}

/** Serialises a tenant's publishes; see migrations/010-definition-tenants.ts. */
export interface DefinitionTenantsTable {
  tenant_id: string;
  revision: number;
}

/** The definition cache's ledger; see migrations/011-cache-mutations.ts. */
export interface CacheMutationsTable {
  id: ColumnType<number | string, never, never>;
  mutation_id: string;
  scope: string;
  owner_instance: string;
  /** 0 or 1. */
  completed: number;
  created_at: Millis;
}

/** One row per process that may open fences: its last heartbeat (migration 012). */
export interface CacheOwnersTable {
  owner: string;
  beat_at: Millis;
}

/** The deployment's identity, one row (migration 013). */
export interface DeploymentIdentityTable {
  id: string;
  created_at: Millis;
}

export interface StoreSchema {
  cache_mutations: CacheMutationsTable;
  cache_owners: CacheOwnersTable;
  deployment_identity: DeploymentIdentityTable;
  definitions: DefinitionsTable;
  definition_versions: DefinitionVersionsTable;
  definition_tenants: DefinitionTenantsTable;
  instances: InstancesTable;
  tasks: TasksTable;
  task_events: TaskEventsTable;
}
