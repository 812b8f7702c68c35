/**
 * Users and groups a request names, checked against the directory before the
 * use case runs. The inbox and process-list queries and the start of a run do
 * not check them themselves; without this, an unknown user's inbox was an empty
 * 200 and a run started by an unknown actor failed later, inside the run.
 * With the open directory (no WF_USERS / WF_GROUP_*) every id is accepted.
 */
import { validation } from "../domain/errors.ts";
import type { Directory } from "../engine/ports.ts";

/** `field` names where the id came from: a query parameter or the X-Actor-Id header. */
export function assertKnownUser(directory: Directory, field: string, id: string): void {
  if (directory.checksIds && !directory.userExists(id)) {
    throw validation(`${field}: unknown user '${id}'`);
  }
}

export function assertKnownGroup(directory: Directory, field: string, id: string): void {
  if (directory.checksIds && !directory.groupExists(id)) {
    throw validation(`${field}: unknown group '${id}'`);
  }
}
