/**
 * Valid definitions for the definition tests: one using every state type, and
 * a small one. Functions, so each test gets its own copy to mutate.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are plain JSON documents */

/** Every state type, a nested parallel, triggers and a form. */
export function expenseApproval(key = "expense-approval"): Record<string, any> {
  return {
    key,
    name: "Expense approval",
    vars: {
      type: "object",
      required: ["amount"],
      properties: { amount: { type: "number" }, approver: { type: "string" } },
    },
    start: "route",
    triggers: [{ method: "POST", path: `/hooks/${key}/{tenant}` }],
    states: {
      route: {
        type: "choice",
        choices: [{ when: "vars.amount > 1000", next: "approve" }],
        otherwise: "check",
      },
      check: {
        type: "call",
        step: "check-budget",
        input: "{ 'amount': vars.amount }",
        retry: { maxAttempts: 5, initialInterval: "1s", backoff: 2, maxInterval: "PT1M" },
        resultVar: "budget",
        next: "ack",
        onError: "approve",
      },
      ack: { type: "respond", status: 202, body: "{ 'accepted': true }", next: "approve" },
      approve: {
        type: "userTask",
        assignee: { users: ["alice", "bob"] },
        completion: { atLeast: 1 },
        title: "Approve {{ vars.amount }} EUR",
        description: "Requested by {{ vars.requester }}",
        form: {
          type: "object",
          properties: { comment: { type: "string", maxLength: 500 } },
        },
        actions: { approve: { next: "pay" }, reject: { next: "rejected" } },
        due: "P2D",
        escalation: { after: "1d", reassign: { group: "managers" } },
        resultVar: "decision",
      },
      pay: {
        type: "parallel",
        join: "all",
        branches: [
          {
            start: "charge",
            states: {
              charge: { type: "call", step: "charge-card", next: "done" },
              done: { type: "end" },
            },
          },
          {
            start: "notify",
            states: {
              notify: { type: "subProcess", workflow: "send-receipt", next: "done" },
              done: { type: "end" },
            },
          },
        ],
        next: "settle",
      },
      settle: {
        type: "waitSignal",
        signal: "settled",
        timeout: "P7D",
        onTimeout: "cool-off",
        next: "archive",
      },
      "cool-off": { type: "timer", duration: { expr: "'PT1H'" }, next: "archive" },
      archive: { type: "subProcess", definition: key, version: 1, next: "end" },
      rejected: { type: "terminate", reason: "rejected" },
      end: { type: "end" },
    },
  };
}

/** start → one task → end. */
export function minimal(key = "minimal"): Record<string, any> {
  return {
    key,
    name: "Minimal",
    start: "review",
    states: {
      review: { type: "userTask", assignee: { user: "alice" }, title: "Review", next: "end" },
      end: { type: "end" },
    },
  };
}
