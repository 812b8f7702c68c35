/**
 * The static list of migrations. Static (not a folder scan) so it works the same
 * from source, from a bundle and from node_modules. Names sort in apply order;
 * migrations are forward-only: never edit or remove one that has shipped, add
 * the next number instead.
 */
import type { Migration, MigrationProvider } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { initialSchema } from "./001-initial-schema.ts";
import { durableRuns } from "./002-durable-runs.ts";
import { servedWorkflows } from "./003-served-workflows.ts";
import { runFilters } from "./004-run-filters.ts";
import { coordinationLocks } from "./005-coordination-locks.ts";
import { coordinationCountersCache } from "./006-coordination-counters-cache.ts";
import { coordinationCodesTokens } from "./007-coordination-codes-tokens.ts";
import { definitionVersions } from "./008-definition-versions.ts";
import { definitionTenants } from "./010-definition-tenants.ts";
import { cacheMutations } from "./011-cache-mutations.ts";
import { cacheOwners } from "./012-cache-owners.ts";
import { deploymentIdentity } from "./013-deployment-identity.ts";
import { runQuarantine } from "./014-run-quarantine.ts";
import { exactText } from "./015-exact-text.ts";
import { servedSteps } from "./016-served-steps.ts";
import { taskDetails } from "./017-task-details.ts";
import { taskForms } from "./018-task-forms.ts";
import { taskEvents } from "./019-task-events.ts";
import { taskPeople } from "./020-task-people.ts";

export function migrationsFor(d: StoreDialect): Record<string, Migration> {
  return {
    "001_initial_schema": initialSchema(d),
    "002_durable_runs": durableRuns(d),
    "003_served_workflows": servedWorkflows(d),
    "004_run_filters": runFilters(d),
    "005_coordination_locks": coordinationLocks(d),
    "006_coordination_counters_cache": coordinationCountersCache(d),
    "007_coordination_codes_tokens": coordinationCodesTokens(d),
    "008_definition_versions": definitionVersions(d),
    "010_definition_tenants": definitionTenants(d),
    "011_cache_mutations": cacheMutations(d),
    "012_cache_owners": cacheOwners(d),
    "013_deployment_identity": deploymentIdentity(d),
    "014_run_quarantine": runQuarantine(),
    "015_exact_text": exactText(d),
    "016_served_steps": servedSteps(d),
    "017_task_details": taskDetails(),
    "018_task_forms": taskForms(),
    "019_task_events": taskEvents(d),
    "020_task_people": taskPeople(),
  };
}

export function migrationProvider(d: StoreDialect): MigrationProvider {
  return { getMigrations: () => Promise.resolve(migrationsFor(d)) };
}
