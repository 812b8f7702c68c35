/**
 * A DefinitionRuns double for the trigger routes: records every start (so a
 * test can say a refused request started nothing) and answers
 * `awaitResponse` as told per definition key — a `respond` state reached
 * after `afterMs`, or none. The second implementation of the port; the
 * interpreter's is the first.
 */
import { randomUUID } from "node:crypto";
import { TaskflowError } from "../../src/domain/errors.ts";
import type { ActorContext } from "../../src/engine/actor-context.ts";
import type {
  DefinitionResponse,
  DefinitionRuns,
  StartDefinitionCommand,
  StartedDefinitionRun,
} from "../../src/engine/definitions/definition-runs.ts";

export interface RecordedStart {
  actor: ActorContext;
  command: StartDefinitionCommand;
  runId: string;
}

export interface ScriptedResponse extends DefinitionResponse {
  /** When the run reaches its `respond` state. */
  afterMs: number;
}

export class RecordingDefinitionRuns implements DefinitionRuns {
  readonly starts: RecordedStart[] = [];
  /** Definition key → what its runs answer; none: the run never responds. */
  readonly responses = new Map<string, ScriptedResponse>();
  /** Definition keys whose starts are refused with a Validation error (vars do not match). */
  readonly refuseVars = new Set<string>();
  private readonly keyOfRun = new Map<string, string>();

  hasPublished(): Promise<boolean> {
    return Promise.resolve(true);
  }

  start(actor: ActorContext, command: StartDefinitionCommand): Promise<StartedDefinitionRun> {
    if (this.refuseVars.has(command.key)) {
      return Promise.reject(new TaskflowError("Validation", "vars do not match the schema"));
    }
    const runId = randomUUID();
    this.starts.push({ actor, command, runId });
    this.keyOfRun.set(runId, `${actor.tenantId}/${command.key}`);
    return Promise.resolve({ instanceId: randomUUID(), runId, version: command.version ?? 1 });
  }

  async awaitResponse(
    tenantId: string,
    runId: string,
    timeoutMs: number,
  ): Promise<DefinitionResponse | null> {
    const key = this.keyOfRun.get(runId);
    const scripted = key?.startsWith(`${tenantId}/`)
      ? this.responses.get(key.slice(tenantId.length + 1))
      : undefined;
    const wait = Math.min(scripted?.afterMs ?? timeoutMs, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (scripted === undefined || scripted.afterMs > timeoutMs) return null;
    return { status: scripted.status, body: scripted.body };
  }
}
