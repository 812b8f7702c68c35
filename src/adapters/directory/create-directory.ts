import type { Directory } from "../../engine/directory-port.ts";
import { OpenDirectory } from "./open-directory.ts";
import { StaticDirectory, type StaticDirectoryConfig } from "./static-directory.ts";

/**
 * With WF_USERS or any non-empty WF_GROUP_<id> the static directory
 * checks ids and membership; otherwise the open directory accepts any id.
 * An empty WF_GROUP_<id> alone does not switch to static: it names nobody.
 */
export function createDirectory(config: StaticDirectoryConfig): Directory {
  const anyMember = Object.values(config.groups).some((m) => m.length > 0);
  return config.users.length > 0 || anyMember ? new StaticDirectory(config) : new OpenDirectory();
}
