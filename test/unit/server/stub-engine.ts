/**
 * A HumanTaskApi whose methods are replaced per test; anything not replaced
 * throws, so a test notices when a route calls the engine unexpectedly.
 */
import type { Writable } from "node:stream";
import { pino } from "pino";
import { loadConfig } from "../../../src/config/load-config.ts";
import type { ConfigOverrides } from "../../../src/config/config.ts";
import type { Task } from "../../../src/domain/task.ts";
import type { HumanTaskApi } from "../../../src/engine/human-tasks/human-task-api.ts";
import type { CacheLedger } from "../../../src/engine/definition-cache/cache-ledger-port.ts";
import type { DefinitionRuns } from "../../../src/engine/definitions/definition-runs.ts";
import type { DefinitionVersions } from "../../../src/engine/definitions/definition-versions.ts";
import type { TriggerRoutes } from "../../../src/engine/definitions/triggers/trigger-routes.ts";
import type { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { serverAdapters } from "../../support/server-adapters.ts";
import { NO_TASK_DETAILS } from "../../../src/domain/task-details.ts";

export const KEY = "test-key-1-0123456789abcdefghijkl";

export function stubEngine(methods: Partial<HumanTaskApi> = {}): HumanTaskApi {
  return new Proxy(methods as HumanTaskApi, {
    get: (target, p: string) =>
      (target as unknown as Record<string, unknown>)[p] ??
      (() => Promise.reject(new Error(`stub engine: ${p} not expected`))),
  });
}

export function sampleTask(over: Partial<Task> = {}): Task {
  return {
    ...NO_TASK_DETAILS,
    id: "t1",
    tenantId: "default",
    instanceId: "i1",
    rootInstanceId: "r1",
    definitionKey: "leave",
    assigneeKind: "user",
    assigneeId: "bob",
    assignedBy: "alice",
    status: "open",
    claimedBy: null,
    claimedAt: null,
    completedBy: null,
    completedAt: null,
    vars: null,
    action: null,
    comment: null,
    owner: null,
    delegation: null,
    createdAt: Date.UTC(2025, 0, 1),
    ...over,
  };
}

export function testConfig(overrides: ConfigOverrides = {}) {
  return loadConfig({
    env: {},
    overrides: { nodeEnv: "production", apiKeys: [KEY], logLevel: "silent", ...overrides },
  });
}

/** A server over a stub engine; `logTo` captures the JSON log lines. */
export async function stubServer(
  methods: Partial<HumanTaskApi> = {},
  options: { overrides?: ConfigOverrides; logTo?: Writable } = {},
) {
  const config = testConfig(options.overrides);
  const logger = options.logTo ? pino({ level: "trace" }, options.logTo) : undefined;
  const app = buildServer({
    engine: stubEngine(methods),
    config,
    logger,
    ...serverAdapters(config),
  });
  await app.ready();
  return app;
}

export const authed = (actor = "bob") => ({ "x-api-key": KEY, "x-actor-id": actor });

/**
 * Every optional route family of buildServer (runs, definition versions, hooks, cache
 * admin), each a stub that is never called: for tests that depend on the routes'
 * schemas only (the OpenAPI snapshot, the schemas' compilation).
 */
export function everyRouteFamily() {
  return {
    runs: {} as DurableRuns,
    definitions: { prepare: () => undefined } as unknown as DefinitionVersions,
    definitionRuns: {} as DefinitionRuns,
    triggerRoutes: {} as TriggerRoutes,
    cacheLedger: {} as CacheLedger,
  };
}
