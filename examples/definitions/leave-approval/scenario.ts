/**
 * The leave-approval story over REST: HR publishes the definition, Emma asks
 * for five days, her manager Mia approves at once, HR does not answer; two
 * days later (the clock moved forward) HR's task goes to the HR lead Hilda,
 * who approves; the leave is booked by the `book-leave` code step.
 */
import type { ExampleApp, Json } from "../app.ts";
import "./steps.ts";

export const DEFINITION = "examples/definitions/leave-approval/definition.yaml";
export const TWO_DAYS_MS = 2 * 86_400_000;

export const leaveVars = (days = 5) => ({
  employee: "emma",
  manager: "mia",
  deputy: "dave",
  days,
  startsOn: "2030-07-01",
});

export async function leaveApproval(
  app: ExampleApp,
  say: (line: string) => void,
): Promise<{ started: Json; run: Json }> {
  const version = await app.publish("hank", DEFINITION);
  say(`hank published leave-approval v${version}`);
  const started = await app.startProcess("emma", "leave-approval", leaveVars());
  say(`emma asked for 5 days: process ${started.instanceId}, run ${started.runId}`);

  const mine = await app.waitForTask("mia", () => true);
  const hr = await app.waitForTask("hank", () => true, "group:hr");
  say(`mia's inbox: "${await app.title(mine)}"; the hr group's: "${await app.title(hr)}"`);
  await app.complete("mia", mine, "approve", { note: "enjoy" });
  say("mia approved; nobody in hr answers");

  app.clock.advance(TWO_DAYS_MS + 60_000);
  say("… two days later, HR's review escalates to the HR lead");
  const lead = await app.waitForTask("hilda", () => true);
  await app.complete("hilda", lead, "approve");
  say(`hilda approved "${await app.title(lead)}"`);

  const run = await app.waitForRun(started.runId);
  say(`the process ${run.status}: booking ${JSON.stringify(run.output?.vars?.booking)}`);
  return { started, run };
}
