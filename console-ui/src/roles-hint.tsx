/**
 * How Console roles are given, for a Console over the open directory (no WF_USERS, no
 * groups: the quick start's). There every login is a plain user, since roles come from
 * directory groups and the open directory has none; without this, Runs and Definitions
 * just read "Not found".
 */
import { useSession } from "./session.tsx";

export function RolesHint() {
  const { session } = useSession();
  if (session?.directory !== "open") return null;
  return (
    <p className="roles-hint" role="note">
      The open directory (no <code>WF_USERS</code>, no groups) makes every login a plain user. Roles
      come from directory groups: start the server with, for example,{" "}
      <code>
        WF_USERS=alice,bob WF_GROUP_ops=alice WF_CONSOLE_OPERATOR_GROUPS=ops
        WF_CONSOLE_ADMIN_GROUPS=ops
      </code>{" "}
      to make alice an operator and admin.
    </p>
  );
}
