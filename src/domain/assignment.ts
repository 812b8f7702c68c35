import type { AssigneeRequest } from "./assignee.ts";
import type { TaskDetailsRequest } from "./task-details.ts";
import type { Vars } from "./vars.ts";

/**
 * An AssignTo request. `onAllCompleted` is the next assignment, performed by the
 * engine itself once every task of the referral this request creates is finished
 * (the parallel join); it nests.
 */
export interface AssignmentRequest extends TaskDetailsRequest {
  definitionKey?: string | undefined;
  parentInstanceId?: string | undefined;
  assignee: AssigneeRequest;
  vars?: Vars | undefined;
  onAllCompleted?: NextAssignment | undefined;
}

/** The shape of `onAllCompleted` and of `next` on completion: attaches to the same root. */
export interface NextAssignment extends TaskDetailsRequest {
  definitionKey?: string | undefined;
  assignee: AssigneeRequest;
  vars?: Vars | undefined;
  onAllCompleted?: NextAssignment | undefined;
}
