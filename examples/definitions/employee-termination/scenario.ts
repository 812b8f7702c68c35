/**
 * The employee-termination story over REST: Hank (HR) starts it for Emma;
 * Ivan (IT), Fiona (finance) and Mia (the manager) each find their task in
 * their inbox and complete it with its form data, in any order; then the HR
 * group gets the closing task, and Hana closes the file.
 */
import type { ExampleApp, Json } from "../app.ts";

export const DEFINITION = "examples/definitions/employee-termination/definition.yaml";

export const terminationVars = () => ({
  employee: "emma",
  manager: "mia",
  lastDay: "2030-06-30",
  reason: "resignation",
});

export async function employeeTermination(
  app: ExampleApp,
  say: (line: string) => void,
): Promise<{ started: Json; run: Json }> {
  const version = await app.publish("hank", DEFINITION);
  say(`hank published employee-termination v${version}`);
  const started = await app.startProcess("hank", "employee-termination", terminationVars());
  say(`hank started the termination of emma: process ${started.instanceId}`);

  const it = await app.waitForTask("ivan", () => true, "group:it");
  const finance = await app.waitForTask("fiona", () => true, "group:finance");
  const handover = await app.waitForTask("mia", () => true);
  say("three tasks at once: the it group's, the finance group's and mia's");
  await app.complete("mia", handover, undefined, { successor: "dave" });
  say(`mia: "${await app.title(handover)}" done`);
  await app.complete("ivan", it, undefined, {
    accountsRevoked: true,
    equipmentReturned: ["laptop", "badge"],
  });
  say(`ivan: "${await app.title(it)}" done`);
  await app.complete("fiona", finance, undefined, { finalPay: 4_180.5 });
  say(`fiona: "${await app.title(finance)}" done`);

  const close = await app.waitForTask("hana", () => true, "group:hr");
  await app.complete("hana", close, "close");
  say(`hana: "${await app.title(close)}" done`);
  const run = await app.waitForRun(started.runId);
  say(`the process ${run.status}`);
  return { started, run };
}
