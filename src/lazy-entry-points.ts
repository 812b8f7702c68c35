/**
 * `createTaskflow` and `migrateDatabase` as the package exports them: each
 * loads its composition when called, not when "taskflow" is imported.
 *
 * Why: a workflow or code-step module imports "taskflow" for `workflow()` and
 * `registerStep`, and every `taskflow worker` and `serve --workflows` process
 * loads one. Imported eagerly, createTaskflow brought the HTTP server, the
 * Console and their dependencies (Fastify's plugins, Swagger, YAML, JOSE:
 * hundreds of module files) into every worker process, which serves no HTTP,
 * at every start and every restart of a crashed or redeployed worker. Both are
 * async already, so the signatures are the composition's own. (createDurable
 * and startWorker are what a worker runs; they stay plain exports.)
 */
import type * as CreateTaskflow from "./composition/create-taskflow.ts";
import type * as MigrateDatabase from "./composition/migrate-database.ts";

/** Embeds the engine: store, human tasks, durable runs, the HTTP server; see create-taskflow.ts. */
export const createTaskflow: typeof CreateTaskflow.createTaskflow = async (...args) =>
  (await import("./composition/create-taskflow.ts")).createTaskflow(...args);

/** Applies pending migrations and closes the store; see migrate-database.ts. */
export const migrateDatabase: typeof MigrateDatabase.migrateDatabase = async (...args) =>
  (await import("./composition/migrate-database.ts")).migrateDatabase(...args);
