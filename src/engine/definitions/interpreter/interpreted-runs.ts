/**
 * DefinitionRuns on the interpreter: a start pins the version (the given one,
 * or the latest published), checks the vars against its schema, and starts a
 * run of `taskflow.definition-run` whose root instance is the process the
 * inbox and the process list show (under the definition's key).
 */
import { documentError, taskflowError } from "../../../domain/errors.ts";
import { DRAFT_VERSION, type DefinitionVersion } from "../../../domain/definition-version.ts";
import type { Vars } from "../../../domain/vars.ts";
import type { ActorContext } from "../../actor-context.ts";
import type { RunStore } from "../../durable/run-store-port.ts";
import { START_ENGINE_RUN, type DurableRuns } from "../../durable/runs-api.ts";
import { assertKnownUser } from "../../human-tasks/checks.ts";
import type { Directory } from "../../directory-port.ts";
import type {
  DefinitionResponse,
  DefinitionRuns,
  StartDefinitionCommand,
  StartedDefinitionRun,
} from "../definition-runs.ts";
import type { CompiledDefinition } from "./compiled-definition.ts";
import { valueFindings } from "../value-check.ts";
import type { DefinitionCache } from "./definition-cache.ts";
import { RESPOND_STEP } from "./respond-state.ts";
import type { ResponseWaiters } from "./response-waiters.ts";
import { DEFINITION_RUN, type DefinitionRunInput } from "./run-input.ts";

/** How often another node's answer is looked for in the run's history. */
const POLL_MS = 100;

export class InterpretedDefinitionRuns implements DefinitionRuns {
  constructor(
    private readonly definitions: DefinitionCache,
    private readonly runs: DurableRuns,
    private readonly runStore: RunStore,
    private readonly responses: ResponseWaiters,
    /** Who exists: the actor starting a process must be a known user (none given: anyone). */
    private readonly directory?: Directory,
  ) {}

  async hasPublished(tenantId: string, key: string): Promise<boolean> {
    return (await this.definitions.latest(tenantId, key)) !== undefined;
  }

  /**
   * State, permission, input — in that order, for POST /v1/processes, the
   * hooks and an embedding app alike: the version (404, 409 retracted), the
   * actor (a known user), then the vars against the version's schema.
   */
  async start(actor: ActorContext, command: StartDefinitionCommand): Promise<StartedDefinitionRun> {
    const v = await this.pinned(actor.tenantId, command.key, command.version);
    const def = this.definitions.remember(v);
    if (this.directory) assertKnownUser(this.directory, "X-Actor-Id", actor.actorId);
    const vars = command.vars ?? {};
    checkVars(def, vars);
    const input: DefinitionRunInput = { key: def.key, version: def.version, vars };
    const { run } = await this.runs[START_ENGINE_RUN](actor.tenantId, DEFINITION_RUN, {
      input,
      startedBy: actor.actorId,
      definitionKey: def.key,
    });
    return { instanceId: run.rootInstanceId ?? "", runId: run.id, version: def.version };
  }

  async awaitResponse(
    tenantId: string,
    runId: string,
    timeoutMs: number,
  ): Promise<DefinitionResponse | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const known = this.responses.known(tenantId, runId);
      if (known !== undefined) return known;
      const stored = await this.fromHistory(tenantId, runId);
      if (stored !== undefined) return stored;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      const local = await this.responses.wait(tenantId, runId, Math.min(POLL_MS, left));
      if (local !== null) return local;
    }
  }

  /** The recorded answer; null when the run finished without one; undefined: not yet. */
  private async fromHistory(
    tenantId: string,
    runId: string,
  ): Promise<DefinitionResponse | null | undefined> {
    const run = await this.runStore.getRun(tenantId, runId);
    if (run === undefined) throw taskflowError("RunNotFound", { runId });
    const history = await this.runStore.loadHistory(tenantId, runId, run.firstSeq);
    for (const ev of history) {
      if (ev.type === "step" && ev.name === RESPOND_STEP) {
        const data = ev.data as { result?: DefinitionResponse };
        if (data.result !== undefined) return data.result;
      }
    }
    return run.status === "completed" || run.status === "failed" || run.status === "cancelled"
      ? null
      : undefined;
  }

  /** The version a start runs on: published (not retracted) and not the draft. */
  private async pinned(
    tenantId: string,
    key: string,
    version?: number,
  ): Promise<DefinitionVersion> {
    if (version === undefined) {
      const latest = await this.definitions.latest(tenantId, key);
      if (latest === undefined)
        throw taskflowError("NoPublishedVersion", { what: "published definition", key });
      return latest;
    }
    const v =
      version === DRAFT_VERSION
        ? undefined
        : await this.definitions.store.getVersion(tenantId, key, version);
    if (v === undefined) throw taskflowError("VersionNotFound", { key, version });
    if (v.status === "retracted") {
      throw taskflowError("VersionRetracted", { version, key });
    }
    return v;
  }
}

function checkVars(def: CompiledDefinition, vars: Vars): void {
  const compiled = def.varsValidator();
  if (compiled === null) return;
  const errors = valueFindings(compiled, vars, "/vars", `the vars of '${def.key}'`);
  if (errors.length > 0) {
    throw documentError("VarsMismatch", { key: def.key }, errors);
  }
}
