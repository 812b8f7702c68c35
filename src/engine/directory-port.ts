/**
 * The directory port: who exists and who belongs where. The engine asks it
 * before a task is assigned, a process or run is started for an actor, or a
 * group inbox is read; adapters (src/adapters/directory/) answer from
 * configuration (WF_USERS / WF_GROUP_*) or accept anyone.
 *
 * Glossary
 * - user, group: ids an assignee or an actor can name; a task is assigned to
 *   one user or one group (kind, id).
 * - member: a user who belongs to a group; a group's members may read its
 *   inbox and claim its tasks.
 * - open directory: the one that checks nothing (`checksIds` false): every id
 *   exists and membership cannot be known, so it answers true.
 *
 * Every method is synchronous: a directory is read on every request, so an
 * adapter holds what it answers in memory.
 */
export interface Directory {
  /** False for the open directory: any id is accepted and membership is not checked. */
  readonly checksIds: boolean;
  userExists(id: string): boolean;
  groupExists(id: string): boolean;
  /** The groups a user belongs to (empty for the open directory). */
  groupsOf(userId: string): readonly string[];
  /** The open directory answers true: it cannot know. */
  isMember(userId: string, groupId: string): boolean;
}
