/**
 * The task rules raise reasons a caller can branch on, with the task's id as a
 * typed field, and the server answers them with the unchanged code and status.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isTaskflowError, type TaskflowError } from "../../../src/domain/errors.ts";
import { assertCanClaim, assertCompletable } from "../../../src/domain/task.ts";
import { toProblem } from "../../../src/server/errors/error-mapping.ts";
import { sampleTask } from "../server/stub-engine.ts";

function refusal(fn: () => void): TaskflowError {
  try {
    fn();
  } catch (e) {
    assert.ok(isTaskflowError(e));
    return e;
  }
  assert.fail("expected a refusal");
}

void test("completing an unclaimed group task: 409 Conflict, reason TaskNotClaimed", () => {
  const t = sampleTask({ id: "g1", assigneeKind: "group", assigneeId: "hr" });
  const e = refusal(() => assertCompletable(t));
  assert.equal(e.reason, "TaskNotClaimed");
  assert.deepEqual(e.params, { taskId: "g1" });
  const p = toProblem(e, "req-1");
  assert.deepEqual([p.status, p.code, p.reason], [409, "Conflict", "TaskNotClaimed"]);
  assert.equal(p.detail, "group task 'g1' must be claimed before it is completed");
});

void test("claiming a claimed task: 409 NotOpen, reason TaskAlreadyClaimed", () => {
  const t = sampleTask({ status: "claimed", claimedBy: "bob" });
  const e = refusal(() => assertCanClaim(t, "bob", () => true));
  const p = toProblem(e, "req-1");
  assert.deepEqual([p.status, p.code, p.reason], [409, "NotOpen", "TaskAlreadyClaimed"]);
  assert.equal(p.detail, "task 't1' is claimed, not open");
});

void test("completing a done task: 409 NotOpen, reason TaskFinished", () => {
  const e = refusal(() => assertCompletable(sampleTask({ status: "done" })));
  assert.deepEqual([e.code, e.reason, e.message], ["NotOpen", "TaskFinished", "task 't1' is done"]);
});
