/**
 * Leave requests, end to end, in one process:
 *
 *   npx tsx examples/leave-approval/main.ts
 *
 * Starts an embedded TaskFlow on a temporary SQLite file, then
 *   1. emma asks for 3 days: her manager mia approves in her inbox; no HR needed;
 *      nobody withdraws before the start, so the team is told;
 *   2. eli asks for 10 days: mia approves, then hank (group "hr") claims and
 *      approves; eli withdraws before the start, so the booking is undone;
 *   3. emma asks for 2 more days: mia rejects.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLeaveApp, MANAGER, type Json } from "./app.ts";
import type { LeaveRequest } from "./workflows.ts";

const dir = mkdtempSync(join(tmpdir(), "taskflow-leave-"));
const app = await openLeaveApp({ databaseUrl: `sqlite:${join(dir, "taskflow.db")}` });

/** A request whose leave starts `inMs` from now (seconds, so the demo stays short). */
const request = (
  requestId: string,
  employee: string,
  days: number,
  inMs: number,
): LeaveRequest => ({
  requestId,
  employee,
  manager: MANAGER,
  days,
  startsAt: new Date(Date.now() + inMs).toISOString(),
});

const print = async (runId: string) => {
  const run = await app.waitForRun(runId);
  console.log(`  run ${runId}: ${run.status} → ${JSON.stringify(run.output)}`);
  const events: Json[] = await app.history(runId);
  console.log(
    `  history: ${events.map((e) => `${e.type}${e.name ? `:${e.name}` : ""}`).join(", ")}`,
  );
};

try {
  console.log(`TaskFlow on ${app.tf.config.databaseUrl}\n`);

  console.log("1. emma: 3 days, starting in 2 s");
  const r1 = await app.submit(request("leave-1", "emma", 3, 2_000));
  const t1 = await app.waitForTask(r1, MANAGER);
  console.log(`  task in ${t1.assignee.kind} ${t1.assignee.id}'s inbox; mia approves`);
  await app.decide(t1, MANAGER, "approve");
  console.log("  booked; the run now waits for a withdrawal until the start date…");
  await print(r1);

  console.log("\n2. eli: 10 days (> 5, so HR too), starting in 5 s");
  const r2 = await app.submit(request("leave-2", "eli", 10, 5_000));
  await app.decide(await app.waitForTask(r2, MANAGER), MANAGER, "approve");
  const t2 = await app.waitForTask(r2, "hank");
  console.log(
    `  mia approved; task for ${t2.assignee.kind} '${t2.assignee.id}'; hank claims and approves`,
  );
  await app.decide(t2, "hank", "approve");
  await app.withdraw(r2, "eli", "project deadline moved");
  console.log("  eli withdraws (POST /v1/runs/leave-2/signals/withdraw)");
  await print(r2);

  console.log("\n3. emma: 2 more days");
  const r3 = await app.submit(request("leave-3", "emma", 2, 60_000));
  await app.decide(await app.waitForTask(r3, MANAGER), MANAGER, "reject", "team offsite that week");
  console.log("  mia rejects");
  await print(r3);

  console.log("\nWhat the HR system did:");
  for (const line of app.hr.log) console.log(`  ${line}`);
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
