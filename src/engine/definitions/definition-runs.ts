/**
 * Starting runs of published definitions: the one seam between the callers
 * that start a process (`POST /v1/processes`, the HTTP triggers of
 * `/v1/hooks/...`) and the interpreter that runs it on the durable runtime.
 *
 * A port because it has two implementations: the interpreter's, and the test
 * double the trigger routes are tested against on their own.
 */
import type { ActorContext } from "../actor-context.ts";
import type { Vars } from "../../domain/vars.ts";

export interface StartDefinitionCommand {
  /** The definition's key in the actor's tenant. */
  key: string;
  /** A published, not retracted version; absent means the latest published one. */
  version?: number;
  /** The process vars: checked against the definition's `vars` schema. */
  vars: Vars;
  /** Shown on the process (the plain definition's name when absent). */
  name?: string;
}

export interface StartedDefinitionRun {
  /** The process (002 instance) id: what the inbox and the process list show. */
  instanceId: string;
  /** The durable run that interprets it. */
  runId: string;
  /** The version it runs on, for good: publishing a newer one never moves it. */
  version: number;
}

/** What a `respond` state answers to the request that started the run. */
export interface DefinitionResponse {
  status: number;
  body: unknown;
}

export interface DefinitionRuns {
  /** True when the key has a published version that is not retracted (the start goes to the interpreter). */
  hasPublished(tenantId: string, key: string): Promise<boolean>;
  /**
   * Starts a run pinned to one version. Errors are the catalogue's: NotFound
   * (no such published version), Conflict (the version is retracted),
   * Validation (vars do not match the definition's schema; `errors[]` with pointers).
   */
  start(actor: ActorContext, command: StartDefinitionCommand): Promise<StartedDefinitionRun>;
  /**
   * The answer of the run's first `respond` state, once the run reaches it;
   * null when it has not within `timeoutMs` (or the run ended without one).
   */
  awaitResponse(
    tenantId: string,
    runId: string,
    timeoutMs: number,
  ): Promise<DefinitionResponse | null>;
}
