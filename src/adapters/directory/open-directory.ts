import type { Directory } from "../../engine/directory-port.ts";

/**
 * The directory used when no users or groups are configured: the host backend
 * owns identity, so any well-formed id is accepted and membership cannot be
 * checked (isMember answers true).
 */
export class OpenDirectory implements Directory {
  readonly checksIds = false;
  userExists(_id: string): boolean {
    return true;
  }
  groupExists(_id: string): boolean {
    return true;
  }
  groupsOf(_userId: string): readonly string[] {
    return [];
  }
  isMember(_userId: string, _groupId: string): boolean {
    return true;
  }
}
