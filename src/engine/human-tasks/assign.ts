import type { AssignmentRequest } from "../../domain/assignment.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult } from "../human-task-api.ts";
import { assertAssignee, assertKnownUser, assertNextChain, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { performAssignment } from "./perform-assignment.ts";

/** 002 §4.2 AssignTo. Every check runs before the transaction writes anything. */
export async function assign(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  req: AssignmentRequest,
): Promise<AssignResult> {
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  if (req.definitionKey !== undefined) requireId("definitionKey", req.definitionKey);
  if (req.parentInstanceId !== undefined) requireId("parentInstanceId", req.parentInstanceId);
  assertAssignee(deps.directory, req.assignee);
  assertNextChain(deps.directory, req.onAllCompleted);
  const now = deps.clock.now();
  return deps.store.transaction((tx) => performAssignment(tx, deps.definitions, ctx, req, now));
}
