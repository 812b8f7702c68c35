/**
 * Definitions the people-page tests publish: a form with a checked amount and named
 * actions, and a parallel approval (two approvers at once, then the manager).
 */

export const EXPENSE_FORM = {
  key: "expense-claim",
  name: "Expense claim",
  start: "review",
  states: {
    review: {
      type: "userTask",
      assignee: { group: "clerks" },
      title: "Review the claim of {{ vars.who }}",
      form: {
        type: "object",
        required: ["amount"],
        properties: {
          amount: { type: "number", minimum: 1, title: "Amount (EUR)" },
          comment: { type: "string", maxLength: 100, title: "Comment" },
          urgent: { type: "boolean", title: "Urgent" },
        },
      },
      actions: { approve: { next: "done" }, reject: { next: "done" } },
    },
    done: { type: "end" },
  },
};

export const PARALLEL_APPROVAL = {
  key: "purchase-approval",
  name: "Purchase approval",
  start: "approvals",
  states: {
    approvals: {
      type: "parallel",
      branches: [
        {
          start: "it",
          states: {
            it: {
              type: "userTask",
              assignee: { user: "bob" },
              title: "IT approval",
              actions: { approve: { next: "end" } },
            },
            end: { type: "end" },
          },
        },
        {
          start: "finance",
          states: {
            finance: {
              type: "userTask",
              assignee: { user: "carol" },
              title: "Finance approval",
              actions: { approve: { next: "end" } },
            },
            end: { type: "end" },
          },
        },
      ],
      join: "all",
      next: "decide",
    },
    decide: {
      type: "userTask",
      assignee: { user: "dave" },
      title: "Manager decision",
      actions: { approve: { next: "done" }, reject: { next: "done" } },
    },
    done: { type: "end" },
  },
};
