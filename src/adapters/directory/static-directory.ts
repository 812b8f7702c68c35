import type { Directory } from "../../engine/directory-port.ts";

export interface StaticDirectoryConfig {
  users: readonly string[];
  /** Group id → member ids. */
  groups: Readonly<Record<string, readonly string[]>>;
}

/**
 * Users and groups fixed at start (WF_USERS, WF_GROUP_<id>). A group member is
 * a user even when WF_USERS does not list it, so a config that only declares
 * groups still works. Unknown ids are rejected by the engine via checksIds.
 */
export class StaticDirectory implements Directory {
  readonly checksIds = true;
  private readonly users: ReadonlySet<string>;
  private readonly members: ReadonlyMap<string, ReadonlySet<string>>;
  private readonly groupsByUser: ReadonlyMap<string, readonly string[]>;

  constructor(config: StaticDirectoryConfig) {
    const members = new Map<string, Set<string>>();
    const groupsByUser = new Map<string, string[]>();
    for (const [group, ids] of Object.entries(config.groups)) {
      members.set(group, new Set(ids));
      for (const id of new Set(ids)) groupsByUser.set(id, [...(groupsByUser.get(id) ?? []), group]);
    }
    this.users = new Set([...config.users, ...groupsByUser.keys()]);
    this.members = members;
    this.groupsByUser = groupsByUser;
  }

  userExists(id: string): boolean {
    return this.users.has(id);
  }
  groupExists(id: string): boolean {
    return this.members.has(id);
  }
  groupsOf(userId: string): readonly string[] {
    return this.groupsByUser.get(userId) ?? [];
  }
  isMember(userId: string, groupId: string): boolean {
    return this.members.get(groupId)?.has(userId) ?? false;
  }
}
