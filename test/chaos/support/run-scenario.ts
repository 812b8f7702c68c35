/**
 * One chaos scenario end to end: a fresh database, a proxy in front of it
 * (PostgreSQL, MariaDB), two `taskflow serve` nodes (one on SQLite), the mixed load, the
 * fault, the recovery probe, then the read-back of everything acknowledged.
 * Shared by `npm run chaos` and the short version in `npm test`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createStore } from "../../../src/adapters/store/create-store.ts";
import { createTestDatabase, type Backend } from "../../support/backends.ts";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.ts";
import { createNode, type ChaosNode } from "./chaos-node.ts";
import type { Fault } from "./faults.ts";
import { ackedCount } from "./ledger.ts";
import { startMixedLoad, type LoadShape } from "./mixed-load.ts";
import { readBack } from "./read-back.ts";
import { measureRecovery } from "./recovery.ts";
import { mountSmallDisk, type SmallDisk } from "./small-disk.ts";
import { readStepLogs } from "./step-log.ts";
import { watchNodes } from "./watchdog.ts";

export interface Scale {
  load: LoadShape;
  /** Load before the fault and after the recovery, each. */
  steadyMs: number;
}

export interface ScenarioResult {
  scenario: string;
  backend: Backend["name"];
  acknowledged: number;
  lost: number;
  reexecuted: number;
  rerunInFlight: number;
  fencedLate: number;
  recoveryRequestS: number | null;
  recoveryRunS: number | null;
  /** Restarts the suite had to make after a node died by itself: must be 0. */
  restarts: number;
  /** Refused answers seen by the load, by status ("0": none came). */
  refused: Record<string, number>;
  /** Everything that breaks an invariant, one line each; empty when the scenario passed. */
  problems: string[];
  skipped?: string;
  /** Seconds spent in each phase (start, steady, fault, recovery, drain, read-back). */
  phasesS: Record<string, number>;
  /** The work directory, when TF_CHAOS_KEEP=1 kept it. */
  kept?: string;
}

/** After this the scenario gives up waiting for recovery (load and read-back have their own bounds). */
const RECOVERY_LIMIT_MS = 60_000;

async function databaseFor(b: Backend, disk: SmallDisk | null) {
  if (disk) return { url: `sqlite:${join(disk.dir, "chaos.db")}`, drop: async () => {} };
  return createTestDatabase(b);
}

async function proxyFor(url: string): Promise<FaultProxy | null> {
  if (url.startsWith("sqlite:")) return null;
  const u = new URL(url);
  return startFaultProxy(u.hostname, Number(u.port || (u.protocol === "postgres:" ? 5432 : 3306)));
}

async function migrate(url: string): Promise<void> {
  const store = createStore(url);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

/** The nodes of a scenario on `b`; the faults that hit a node hit the last one. */
export function nodeNames(b: Backend): string[] {
  return b.name === "sqlite" ? ["a"] : ["a", "b"];
}

/** An empty result: the start of every scenario, and the row of one that could not run. */
export function emptyResult(b: Backend, fault: Fault, skipped?: string): ScenarioResult {
  return {
    scenario: fault.name,
    backend: b.name,
    acknowledged: 0,
    lost: 0,
    reexecuted: 0,
    rerunInFlight: 0,
    fencedLate: 0,
    recoveryRequestS: null,
    recoveryRunS: null,
    restarts: 0,
    refused: {},
    problems: [],
    phasesS: {},
    ...(skipped === undefined ? {} : { skipped }),
  };
}

export async function runScenario(b: Backend, fault: Fault, scale: Scale): Promise<ScenarioResult> {
  const result = emptyResult(b, fault);
  const lap = lapper(result.phasesS);
  let disk: SmallDisk | null = null;
  if (fault.needsDisk) {
    const mounted = mountSmallDisk();
    if (typeof mounted === "string") return emptyResult(b, fault, mounted);
    disk = mounted;
  }
  const dir = mkdtempSync(join(tmpdir(), "tf-chaos-"));
  const nodes: ChaosNode[] = [];
  let proxy: FaultProxy | null = null;
  let db: { url: string; drop(): Promise<void> } | undefined;
  try {
    db = await databaseFor(b, disk);
    await migrate(db.url);
    proxy = await proxyFor(db.url);
    const nodeUrl = proxy ? proxy.urlFor(db.url) : db.url;
    // One node on SQLite: one process per SQLite file (a second one refuses to start, see
    // src/adapters/store/dialects/sqlite/process-lock.ts). Two on PostgreSQL and MariaDB.
    for (const name of nodeNames(b)) nodes.push(await createNode(name, nodeUrl, dir));
    await Promise.all(nodes.map((n) => n.start()));
    lap("start");
    await exercise(nodes, proxy, disk, fault, scale, result, lap);
  } catch (e) {
    // A node that cannot start, a database that cannot be made: this scenario fails, the run goes on.
    result.problems.push(`the scenario broke off: ${(e as Error).message.slice(0, 600)}`);
  } finally {
    await Promise.all(nodes.map((n) => n.close()));
    await proxy?.close();
    disk?.unmount();
    await db?.drop().catch(() => undefined);
    // TF_CHAOS_KEEP=1 keeps the nodes' step logs and output for a look afterwards.
    if (process.env.TF_CHAOS_KEEP === "1") result.kept = dir;
    else rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

async function exercise(
  nodes: ChaosNode[],
  proxy: FaultProxy | null,
  disk: SmallDisk | null,
  fault: Fault,
  scale: Scale,
  result: ScenarioResult,
  lap: (phase: string) => void,
): Promise<void> {
  const tag = `${fault.name}-${Date.now().toString(36)}`;
  const bases = nodes.map((n) => n.base);
  const watchdog = watchNodes(nodes);
  // Room for the two steady phases, the longest fault (10 s) and a slow recovery, with margin.
  const load = startMixedLoad(bases, tag, scale.load, Date.now() + 4 * scale.steadyMs + 60_000);
  try {
    await sleep(scale.steadyMs);
    lap("steady");
    const healedAt = await fault.run({ nodes, proxy, disk });
    lap("fault");
    const recovery = await measureRecovery(
      bases,
      `${tag}-probe`,
      healedAt,
      healedAt + RECOVERY_LIMIT_MS,
    );
    result.recoveryRequestS = recovery.requestS;
    result.recoveryRunS = recovery.runS;
    lap("recovery");
    await sleep(scale.steadyMs);
    lap("steady");
  } finally {
    await load.stop();
    lap("drain");
  }
  const steps = readStepLogs(nodes.map((n) => n.stepLog));
  const back = await readBack(bases, load.ledger, steps);
  lap("read-back");
  watchdog.stop();
  result.acknowledged = ackedCount(load.ledger);
  result.lost = back.lost.length;
  result.reexecuted = back.reexecuted;
  result.rerunInFlight = back.rerunInFlight;
  result.fencedLate = back.fencedLate;
  result.restarts = watchdog.restarts;
  result.refused = Object.fromEntries(load.caller.refused);
  result.problems = problemsOf(result, back.lost, nodes);
  result.problems.push(...back.rerunDetails.slice(0, 5).map((d) => `ran again: ${d}`));
}

/** Records the seconds since the previous lap under each phase's name. */
function lapper(into: Record<string, number>): (phase: string) => void {
  let last = Date.now();
  return (phase) => {
    const now = Date.now();
    into[phase] = (into[phase] ?? 0) + Math.round((now - last) / 100) / 10;
    last = now;
  };
}

function problemsOf(r: ScenarioResult, lost: string[], nodes: ChaosNode[]): string[] {
  const problems = lost.slice(0, 10).map((l) => `lost: ${l}`);
  if (lost.length > 10) problems.push(`… and ${lost.length - 10} more lost`);
  if (r.reexecuted > 0) problems.push(`${r.reexecuted} recorded steps ran again`);
  if (r.recoveryRequestS === null) problems.push("the nodes did not answer writes again");
  if (r.recoveryRunS === null) problems.push("no new run completed after the fault");
  for (const n of nodes) {
    problems.push(...n.crashes.map((c) => c.slice(0, 600)));
    if (!n.alive) problems.push(`node ${n.name} is not running at the end`);
  }
  return problems;
}
