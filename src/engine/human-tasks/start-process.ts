import { newId } from "../../domain/ids.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import type { Instance } from "../../domain/instance.ts";
import type { Vars } from "../../domain/vars.ts";
import type { ActorContext } from "../actor-context.ts";
import type { StartResult } from "./human-task-api.ts";
import { assertKnownUser, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";

/**
 * Start a process: find or create the definition, then a running root instance. No task yet.
 * Nothing can be in a wrong state here: the actor is checked first, then the input.
 */
export async function startProcess(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: { processKey: string; name?: string | undefined; vars?: Vars | undefined },
): Promise<StartResult> {
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  requireId("processKey", req.processKey);
  assertStorableText(req.name, "name");
  assertStorableText(req.vars, "vars");
  const now = deps.clock.now();
  const cached = deps.definitions.get(ctx.tenantId, req.processKey);
  // Nearly always the definition exists already (cached, or read by the store
  // before it would insert one): an insert-if-absent of one hot key makes
  // concurrent starts queue on its unique-index entry (measured: 32 concurrent
  // starts of one key serialised behind each other).
  const definition = cached ?? {
    id: newId(now),
    tenantId: ctx.tenantId,
    key: req.processKey,
    name: req.name ?? req.processKey,
    createdAt: now,
  };
  const root = newRoot(ctx, definition.id, req.processKey, req.vars ?? {}, now);
  const def = await deps.store.startProcess({
    definition,
    definitionExists: cached !== undefined,
    root,
  });
  if (!cached) deps.definitions.put(def); // committed now
  return { definitionKey: def.key, instanceId: root.id };
}

function newRoot(
  ctx: ActorContext,
  definitionId: string,
  key: string,
  vars: Vars,
  now: number,
): Instance {
  const id = newId(now);
  return {
    id,
    tenantId: ctx.tenantId,
    kind: "process",
    definitionId,
    definitionKey: key,
    parentInstanceId: null,
    rootInstanceId: id,
    status: "running",
    processState: "notStarted",
    vars,
    startedBy: ctx.actorId,
    createdAt: now,
    completedAt: null,
    onAllCompleted: null,
    joinedAt: null,
  };
}
