/**
 * One command per example, end to end:
 *
 *   npx tsx examples/definitions/run.ts leave-approval
 *   npx tsx examples/definitions/run.ts purchase-order
 *   npx tsx examples/definitions/run.ts employee-termination
 *
 * An embedded TaskFlow on a temporary SQLite file (deleted at the end):
 * publishes the example's definition over REST, starts a process, acts in the
 * inboxes of the people involved, and prints what happens.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openExampleApp, type ExampleApp } from "./app.ts";
import { employeeTermination } from "./employee-termination/scenario.ts";
import { leaveApproval } from "./leave-approval/scenario.ts";
import { purchaseOrders } from "./purchase-order/scenario.ts";

const examples: Record<string, (app: ExampleApp, say: (line: string) => void) => Promise<unknown>> =
  {
    "leave-approval": leaveApproval,
    "purchase-order": purchaseOrders,
    "employee-termination": employeeTermination,
  };

const name = process.argv[2] ?? "";
const example = examples[name];
if (example === undefined) {
  console.error(`usage: npx tsx examples/definitions/run.ts <${Object.keys(examples).join("|")}>`);
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "tf-definitions-"));
const app = await openExampleApp({ databaseUrl: `sqlite:${join(dir, "taskflow.db")}` });
try {
  await example(app, (line) => console.log(`  ${line}`));
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
