import type { Task } from "../../../domain/task.ts";
import type { ReferralFacts } from "../../../engine/human-tasks/task-store-port.ts";

/** Past this many entries the oldest are dropped (~400 bytes each: ~4 MB at most). */
const MAX_ENTRIES = 10_000;

export interface OpenTaskEntry {
  /** The task as its assignment created it: open, unclaimed. */
  task: Task;
  referral: ReferralFacts;
}

/**
 * User tasks this store has just inserted (by an assignment or a join that
 * committed here), with their referral, so that `findTaskToComplete` needs no
 * read: on PostgreSQL a completion is then one statement instead of a read
 * plus one statement (a REST cycle of 3 completes: 9 statements → 6); in the
 * locked transaction (MariaDB, SQLite) it saves the read the engine plans from,
 * which that path did inside its transaction before the port had commands.
 *
 * Why this is safe: every field kept here is fixed when the rows are inserted —
 * nothing in the store updates a task's instance, root, definition, assignee or
 * creation time, or a referral's parent, root, starter or onAllCompleted, and
 * nothing deletes either. The one thing that changes, the task's status, is not
 * trusted: the completion is written only `WHERE status = 'open'`, and any other
 * outcome (claimed, done, cancelled since) falls back to reading the task. An
 * open task has no claimer (only release reopens a task, and it clears both
 * claim columns), so an entry is exactly the row while the write succeeds.
 *
 * A miss (another node made the assignment, or the entry was evicted) costs
 * nothing but the read this saves. Keys carry the tenant.
 */
export class OpenTaskCache {
  private readonly byKey = new Map<string, OpenTaskEntry>();

  constructor(private readonly max = MAX_ENTRIES) {}

  /** Only after the rows are committed: a rolled-back task must not be found here. */
  put(entry: OpenTaskEntry): void {
    if (entry.task.assigneeKind !== "user" || entry.task.status !== "open") return;
    if (this.byKey.size >= this.max) {
      // Map iterates in insertion order: the first key is the oldest entry.
      const oldest = this.byKey.keys().next();
      if (oldest.done !== true) this.byKey.delete(oldest.value);
    }
    this.byKey.set(keyOf(entry.task.tenantId, entry.task.id), entry);
  }

  /** The entry, removed: a task is completed once, so it is needed once. */
  take(tenantId: string, taskId: string): OpenTaskEntry | undefined {
    const key = keyOf(tenantId, taskId);
    const entry = this.byKey.get(key);
    if (entry !== undefined) this.byKey.delete(key);
    return entry;
  }

  get size(): number {
    return this.byKey.size;
  }
}

const keyOf = (tenantId: string, taskId: string) => `${tenantId}\u0000${taskId}`;

/** What a JSON column gives back for `v`. */
export const jsonCopy = <T>(v: T): T => (v === null ? v : (JSON.parse(JSON.stringify(v)) as T));
