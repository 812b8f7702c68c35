/**
 * A definition's parallel branches run as child runs, and each child run has a process
 * of its own (definition key "taskflow.definition-run", vars.runId "<parent run>:<n>"),
 * started by the same user. These helpers find a process's branches among the
 * starter's processes, so its page can show the branches' tasks with its own.
 */
import { engine } from "../../api.ts";
import type { Instance, InstanceTree, Page } from "../../wire.ts";

const RUN_KEY = "taskflow.definition-run";
const BRANCH_RUN = /^(.+):(\d+)$/;

const runIdOf = (i: Instance): string | null =>
  typeof i.vars?.["runId"] === "string" ? i.vars["runId"] : null;

/** "branch 2 of a process" for a branch's process; null for any other. */
export function branchLabel(i: Instance): string | null {
  const m = i.definitionKey === RUN_KEY ? BRANCH_RUN.exec(runIdOf(i) ?? "") : null;
  return m?.[2] === undefined ? null : `branch ${Number(m[2]) + 1} of a process`;
}

/** The processes of `root`'s branches (and theirs), each with its tasks; [] for a plain process. */
export async function branchesOf(
  root: Instance,
  userId: string,
  signal: AbortSignal,
): Promise<InstanceTree[]> {
  const runId = runIdOf(root);
  // A plain user may list only their own processes; someone else's page shows no branches.
  if (runId === null || root.kind !== "process" || root.startedBy !== userId) return [];
  const query = new URLSearchParams({ user: userId, createdAfter: root.createdAt, limit: "500" });
  const found: Instance[] = [];
  let cursor: string | null = null;
  do {
    if (cursor !== null) query.set("cursor", cursor);
    const page: Page<Instance> = await engine<Page<Instance>>(`processes?${query.toString()}`, {
      signal,
    });
    found.push(...page.items.filter((p) => runIdOf(p)?.startsWith(`${runId}:`) === true));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return Promise.all(found.map((b) => engine<InstanceTree>(`instances/${b.id}`, { signal })));
}
