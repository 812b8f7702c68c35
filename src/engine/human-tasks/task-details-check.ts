/**
 * A task's details as a request asks for them (domain/task-details.ts), with
 * the one check the domain cannot make: that its form is a JSON Schema the
 * engine can run — within the schema limits and compilable — so a form that
 * could never check a completion is refused when the task is made, not when
 * someone tries to complete it.
 */
import { taskflowError } from "../../domain/errors.ts";
import {
  taskDetailsOf,
  type TaskDetails,
  type TaskDetailsRequest,
} from "../../domain/task-details.ts";
import { compileSchema } from "../definitions/schema-compiler.ts";

export function checkedTaskDetails(req: TaskDetailsRequest, at = ""): TaskDetails {
  const details = taskDetailsOf(req, at);
  if (details.form !== null) {
    const outcome = compileSchema(details.form);
    if (!outcome.ok) {
      const first = outcome.errors[0];
      const more = outcome.errors.length > 1 ? ` (and ${outcome.errors.length - 1} more)` : "";
      throw taskflowError("InvalidTaskDetails", {
        detail: `${at}form${first?.pointer ?? ""}: ${first?.reason ?? "is not a JSON Schema"}${more}`,
      });
    }
  }
  return details;
}
