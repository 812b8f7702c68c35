/** Example values shown by /openapi.json and /docs (the shapes of inbox-views.ts and run-routes.ts). */

const ROOT = "0193a1b2-6f00-7c22-8f10-0a1b2c3d4e5f";
const REFERRAL = "0193a1b2-7b00-7a11-9c20-1b2c3d4e5f60";
const TASK = "0193a1b2-7c10-7d2e-9a41-3b5c6d7e8f90";
const T0 = "2025-01-15T09:30:00.000Z";
const T1 = "2025-01-15T10:02:11.000Z";

export const taskExample = {
  id: TASK,
  instanceId: REFERRAL,
  rootInstanceId: ROOT,
  definitionKey: "leave",
  assignee: { kind: "user", id: "bob" },
  assignedBy: "alice",
  status: "open",
  claimedBy: null,
  claimedAt: null,
  completedBy: null,
  completedAt: null,
  vars: { days: 3 },
  createdAt: T0,
  title: "Approve 3 days of leave",
  description: null,
  priority: 70,
  dueAt: "2025-01-17T17:00:00.000Z",
  followUpAt: null,
  overdue: false,
  form: { type: "object", properties: { note: { type: "string", maxLength: 500 } } },
  formUi: { fields: { note: { label: "Note for HR", widget: "textarea" } } },
  actions: [
    { name: "approve", label: "Approve", commentRequired: false },
    { name: "reject", label: "Reject", commentRequired: true },
  ],
  actionRequired: true,
  exclude: { users: [], starter: true, earlierCompleters: false },
  owner: null,
  delegation: null,
  action: null,
  comment: null,
};

export const claimedTaskExample = {
  ...taskExample,
  status: "claimed",
  claimedBy: "bob",
  claimedAt: T1,
};

export const doneTaskExample = {
  ...claimedTaskExample,
  status: "done",
  completedBy: "bob",
  completedAt: T1,
  vars: { note: "Enjoy" },
  action: "approve",
  comment: "Covered by Dana",
};

export const taskEventExample = {
  id: "42",
  taskId: TASK,
  instanceId: REFERRAL,
  rootInstanceId: ROOT,
  type: "completed",
  actor: "bob",
  at: T1,
  reason: null,
  status: "done",
  assignee: { kind: "user", id: "bob" },
  claimedBy: "bob",
  action: "approve",
  comment: "Covered by Dana",
};

export const instanceExample = {
  id: ROOT,
  kind: "process",
  definitionKey: "leave",
  parentInstanceId: null,
  rootInstanceId: ROOT,
  status: "running",
  processState: "open",
  vars: { employee: "bob" },
  startedBy: "alice",
  createdAt: T0,
  completedAt: null,
  onAllCompleted: null,
  joinedAt: null,
};

const referralExample = {
  ...instanceExample,
  id: REFERRAL,
  kind: "referral",
  parentInstanceId: ROOT,
  processState: null,
  vars: { days: 3 },
};

export const instanceTreeExample = {
  ...instanceExample,
  children: [{ ...referralExample, children: [], tasks: [taskExample] }],
  tasks: [],
};

export const completionExample = {
  instanceId: REFERRAL,
  allCompleted: false,
  total: 2,
  open: 1,
  claimed: 0,
  done: 1,
  cancelled: 0,
};

export const definitionExample = {
  id: "0193a1b2-6e00-7b00-8a00-0a0b0c0d0e0f",
  key: "leave",
  name: "Leave request",
  createdAt: T0,
};

export const assignResultExample = {
  instanceId: REFERRAL,
  task: taskExample,
  tasks: [taskExample],
};

export const pageExample = (item: unknown) => ({ items: [item], nextCursor: null });

export const runExample = {
  runId: "order-1042",
  workflow: "order",
  status: "failed",
  input: { orderId: "1042", amount: 250 },
  output: null,
  error: {
    name: "NonRetryableError",
    message: "card declined",
    stack: null,
    nonRetryable: true,
  },
  rootInstanceId: ROOT,
  parentRunId: null,
  startedBy: "alice",
  cancelRequested: false,
  createdAt: T0,
  updatedAt: "2025-01-15T09:30:00.488Z",
};

export const historyExample = {
  items: [
    {
      seq: 0,
      type: "step",
      name: "charge",
      at: "2025-01-15T09:30:00.099Z",
      data: { result: { chargeId: "ch_1", amount: 250 } },
    },
    {
      seq: 1,
      type: "signal_wait",
      name: "approval",
      at: "2025-01-15T09:30:00.110Z",
      data: { deadline: 1736937000110 },
    },
    {
      seq: 2,
      type: "signal",
      name: "approval",
      at: "2025-01-15T09:30:00.481Z",
      data: {
        payload: { approved: true },
        signalId: "0193a1b2-8123-7002-a048-74ce71567fd5",
        ref: 1,
      },
    },
  ],
  nextCursor: null,
};
