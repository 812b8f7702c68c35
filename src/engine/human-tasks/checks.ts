import type { AssigneeRequest } from "../../domain/assignee.ts";
import type { NextAssignment } from "../../domain/assignment.ts";
import { taskflowError } from "../../domain/errors.ts";
import { assertStorableText, unstorableReason } from "../../domain/storable-text.ts";
import {
  MAX_ASSIGNMENT_DEPTH,
  MAX_ID_LENGTH,
  MAX_USERS_PER_ASSIGNMENT,
} from "../../domain/limits.ts";
import type { ActorContext, TenantContext } from "../actor-context.ts";
import type { Directory } from "../directory-port.ts";
import { checkedTaskDetails } from "./task-details-check.ts";

/**
 * Input checks the engine makes itself, so an app that embeds the engine
 * (no HTTP schema in front) gets the same 4xx errors as a REST caller.
 */
export function requireId(field: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw taskflowError("InvalidId", {
      detail: `${field} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    });
  }
  const reason = unstorableReason(value);
  if (reason !== null) throw taskflowError("InvalidId", { detail: `${field}: ${reason}` });
  return value;
}

export function assertKnownUser(dir: Directory, field: string, id: string) {
  requireId(field, id);
  if (dir.checksIds && !dir.userExists(id))
    throw taskflowError("UnknownUser", { field, userId: id });
}

/**
 * Whose list a user's list is: the user named, else the actor — checked as the
 * header it came in, so the refusal names what the caller sent.
 */
export function listUser(
  dir: Directory,
  ctx: TenantContext | ActorContext,
  userId: string | undefined,
): string {
  if (userId !== undefined) {
    assertKnownUser(dir, "user", userId);
    return userId;
  }
  const actorId = "actorId" in ctx ? ctx.actorId : undefined;
  if (actorId === undefined)
    throw taskflowError("InvalidArgument", {
      detail: "user is required when the context names no actor",
    });
  assertKnownUser(dir, "X-Actor-Id", actorId);
  return actorId;
}

export function assertKnownGroup(dir: Directory, field: string, id: string) {
  requireId(field, id);
  if (dir.checksIds && !dir.groupExists(id))
    throw taskflowError("UnknownGroup", { field, groupId: id });
}

export function assertAssignee(dir: Directory, a: AssigneeRequest) {
  if (a.kind === "users") {
    if (!Array.isArray(a.ids) || a.ids.length === 0 || a.ids.length > MAX_USERS_PER_ASSIGNMENT) {
      throw taskflowError("InvalidAssignee", {
        detail: `assignee.ids must list 1 to ${MAX_USERS_PER_ASSIGNMENT} users`,
      });
    }
    a.ids.forEach((id, i) => assertKnownUser(dir, `assignee.ids[${i}]`, id));
  } else if (a.kind === "user") {
    assertKnownUser(dir, "assignee.id", a.id);
  } else if (a.kind === "group") {
    assertKnownGroup(dir, "assignee.id", a.id);
  } else {
    throw taskflowError("InvalidAssignee", {
      detail: `assignee.kind must be user, group or users`,
    });
  }
}

/**
 * A join or `next` is checked when it is handed in, not when it fires: a join
 * that failed later would make the last task of a referral impossible to complete.
 */
export function assertNextChain(
  dir: Directory,
  next: NextAssignment | undefined,
  depth = 1,
  /** Where `next` sits in the request, for the 400's field name. */
  path = "onAllCompleted",
) {
  if (next === undefined || next === null) return;
  if (depth > MAX_ASSIGNMENT_DEPTH) {
    throw taskflowError("AssignmentTooDeep", { max: MAX_ASSIGNMENT_DEPTH });
  }
  if (next.definitionKey !== undefined) requireId("definitionKey", next.definitionKey);
  assertAssignee(dir, next.assignee);
  checkedTaskDetails(next, `${path}.`);
  assertStorableText(next.vars, "vars");
  assertNextChain(dir, next.onAllCompleted, depth + 1, `${path}.onAllCompleted`);
}
