/** Deciding ctx.humanTask from its tasks: all, any, atLeast, cancelled tasks, the timeout. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Task, TaskStatus } from "../../../src/domain/task.ts";
import {
  evaluatePolicy,
  timedOutResult,
} from "../../../src/engine/durable/commands/task-policy.ts";
import { NO_TASK_DETAILS } from "../../../src/domain/task-details.ts";

function task(id: string, status: TaskStatus, completedAt: number | null = null): Task {
  const done = status === "done";
  return {
    ...NO_TASK_DETAILS,
    id,
    tenantId: "t1",
    instanceId: "ref",
    rootInstanceId: "root",
    definitionKey: "review",
    assigneeKind: "user",
    assigneeId: id,
    assignedBy: "alice",
    status,
    claimedBy: null,
    claimedAt: null,
    completedBy: done ? id : null,
    completedAt,
    // Recorded as before migration 018: the action only in the vars.
    vars: done ? { action: `by-${id}` } : null,
    action: null,
    comment: null,
    owner: null,
    delegation: null,
    createdAt: 0,
  };
}

describe("task policy", () => {
  it("all: open while any task is open; decided by the last completion", () => {
    assert.equal(evaluatePolicy("ref", [task("a", "done", 2), task("b", "open")], "all"), null);
    const r = evaluatePolicy("ref", [task("a", "done", 2), task("b", "done", 1)], "all");
    assert.equal(r?.completedBy, "a");
    assert.equal(r?.action, "by-a");
    assert.deepEqual(
      r?.completions.map((c) => c.taskId),
      ["b", "a"],
    );
    assert.equal(r?.cancelled, false);
  });

  it("the action and comment the completion recorded, before an action in its vars", () => {
    const a = { ...task("a", "done", 2), action: "approve", comment: "fine" };
    const r = evaluatePolicy("ref", [a], "all");
    assert.deepEqual([r?.action, r?.comment], ["approve", "fine"]);
    assert.deepEqual(
      r?.completions.map((c) => [c.action, c.comment]),
      [["approve", "fine"]],
    );
  });

  it("any and atLeast: decided by the n-th completion in time order", () => {
    const tasks = [task("a", "done", 5), task("b", "done", 3), task("c", "open")];
    assert.equal(evaluatePolicy("ref", tasks, "any")?.completedBy, "b");
    assert.equal(evaluatePolicy("ref", tasks, { atLeast: 2 })?.completedBy, "a");
    assert.equal(evaluatePolicy("ref", tasks, { atLeast: 3 }), null);
  });

  it("cancelled: the policy can no longer be met once no task is left open", () => {
    const r = evaluatePolicy("ref", [task("a", "done", 1), task("b", "cancelled")], "all");
    assert.equal(r?.cancelled, true);
    assert.equal(r?.completedBy, "a");
    assert.equal(r?.timedOut, false);
  });

  it("timeout: whatever was done, no decider, timedOut", () => {
    const r = timedOutResult("ref", [task("a", "done", 1), task("b", "open")]);
    assert.deepEqual(
      [r.completedBy, r.action, r.cancelled, r.timedOut, r.completions.length],
      [null, null, true, true, 1],
    );
  });
});
