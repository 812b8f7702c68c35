/**
 * The purchase-order story over REST: Paul orders three times. 400 EUR is
 * charged at once; 2,500 EUR needs his manager Mia; 25,000 EUR the finance
 * directors (Frank claims and approves). Every charge's first attempt times
 * out at the provider and the step's retry charges it on the second.
 */
import type { ExampleApp, Json } from "../app.ts";
import "./steps.ts";

export const DEFINITION = "examples/definitions/purchase-order/definition.yaml";

export const orderVars = (orderId: string, amount: number, supplier = "paper-and-co") => ({
  orderId,
  requester: "paul",
  manager: "mia",
  amount,
  supplier,
});

export async function purchaseOrders(
  app: ExampleApp,
  say: (line: string) => void,
): Promise<Json[]> {
  const version = await app.publish("fiona", DEFINITION);
  say(`fiona published purchase-order v${version}`);
  const runs: Json[] = [];

  const small = await app.startProcess("paul", "purchase-order", orderVars("po-1", 400));
  runs.push(await app.waitForRun(small.runId));
  say(`po-1, 400 EUR: no approval needed → ${describe(runs[0])}`);

  const medium = await app.startProcess("paul", "purchase-order", orderVars("po-2", 2_500));
  const mia = await app.waitForTask("mia", () => true);
  say(`po-2, 2,500 EUR: mia's inbox has "${await app.title(mia)}"`);
  await app.complete("mia", mia, "approve");
  runs.push(await app.waitForRun(medium.runId));
  say(`mia approved → ${describe(runs[1])}`);

  const large = await app.startProcess("paul", "purchase-order", orderVars("po-3", 25_000));
  const board = await app.waitForTask("frank", () => true, "group:directors");
  say(`po-3, 25,000 EUR: the finance directors' inbox has "${await app.title(board)}"`);
  await app.complete("frank", board, "approve");
  runs.push(await app.waitForRun(large.runId));
  say(`frank claimed and approved → ${describe(runs[2])}`);
  return runs;
}

function describe(run: Json): string {
  const p = run.output?.vars?.payment;
  return `${run.status}, ${p?.chargeId ?? "no charge"}`;
}
