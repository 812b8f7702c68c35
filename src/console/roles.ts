/**
 * Console roles from directory groups: admin ⊇ operator ⊇ user. Everyone who
 * can log in is a user; members of WF_CONSOLE_OPERATOR_GROUPS are operators;
 * members of WF_CONSOLE_ADMIN_GROUPS are admins (and operators). Computed on
 * every request, so a directory change applies without logging in again.
 */
import type { Directory } from "../engine/index.ts";

export const ROLES = ["user", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export interface RoleGroups {
  operatorGroups: readonly string[];
  adminGroups: readonly string[];
}

/** Every role the user holds, lowest first. */
export function rolesOf(directory: Directory, userId: string, groups: RoleGroups): Role[] {
  // groupsOf, not isMember: the open directory answers isMember true for anyone.
  const mine = new Set(directory.groupsOf(userId));
  const admin = groups.adminGroups.some((g) => mine.has(g));
  const operator = admin || groups.operatorGroups.some((g) => mine.has(g));
  return admin ? ["user", "operator", "admin"] : operator ? ["user", "operator"] : ["user"];
}

export const holds = (roles: readonly Role[], needed: Role): boolean => roles.includes(needed);
