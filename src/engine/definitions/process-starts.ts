/**
 * POST /v1/processes as a use case: a key with a published version (or a
 * start that names a version) becomes a run of that version on the
 * interpreter; any other key a plain process of the inbox. The choice lives
 * here, not in the route, so `taskflow.processes.start` from an embedding app
 * starts what REST starts, with the same refusals in the same order.
 */
import type { Vars } from "../../domain/vars.ts";
import type { ActorContext } from "../actor-context.ts";
import type { HumanTaskApi, StartResult } from "../human-tasks/human-task-api.ts";
import type { DefinitionRuns } from "./definition-runs.ts";

export interface StartProcessRequest {
  processKey: string;
  /** The plain definition's name, created with it when the tenant has none yet. */
  name?: string | undefined;
  vars?: Vars | undefined;
  /** A published version to run; absent: the latest published one, or a plain process. */
  version?: number | undefined;
}

export interface StartedProcess extends StartResult {
  /** The interpreter's run (published definitions only). */
  runId?: string;
  /** The version the run is pinned to (published definitions only). */
  version?: number;
}

export class ProcessStarts {
  /** Without `definitionRuns` every start is a plain process (a node without the interpreter). */
  constructor(
    private readonly engine: HumanTaskApi,
    private readonly definitionRuns?: DefinitionRuns | undefined,
  ) {}

  async start(ctx: ActorContext, req: StartProcessRequest): Promise<StartedProcess> {
    const { processKey, name, vars, version } = req;
    const runs = this.definitionRuns;
    if (runs && (version !== undefined || (await runs.hasPublished(ctx.tenantId, processKey)))) {
      // The use case checks the version, then the actor, then the vars.
      const run = await runs.start(ctx, { key: processKey, version, vars: vars ?? {}, name });
      const { instanceId, runId } = run;
      return { definitionKey: processKey, instanceId, runId, version: run.version };
    }
    return this.engine.start(ctx, { processKey, name, vars });
  }
}
