/**
 * The faults of the chaos suite. Each breaks something under load, waits,
 * mends it, and resolves with the moment the fault ended (recovery is timed
 * from there).
 *
 * The database servers are never stopped or restarted: other test runs share
 * them. A "restart" is simulated at the proxy — connections cut and new ones
 * refused for a few seconds — which is what a node sees of a restart.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Backend } from "../../support/backends.ts";
import type { FaultProxy } from "../../support/fault-proxy.ts";
import type { ChaosNode } from "./chaos-node.ts";
import { stepsInFlight, untilWorkInHand } from "./in-flight.ts";
import type { SmallDisk } from "./small-disk.ts";

export interface FaultTarget {
  nodes: readonly ChaosNode[];
  /** Between the nodes and PostgreSQL / MariaDB; null on SQLite. */
  proxy: FaultProxy | null;
  /** The tmpfs holding the SQLite database, for "disk-full". */
  disk: SmallDisk | null;
}

export interface Fault {
  readonly name: string;
  readonly backends: readonly Backend["name"][];
  readonly needsDisk?: boolean;
  run(t: FaultTarget): Promise<number>;
}

/**
 * The workers' lease (WorkerOptions.leaseMs, 5 s by default; `taskflow serve`
 * has no setting for it). A paused node must stay stopped past it, plus a
 * heartbeat (1.5 s) and a poll (0.5 s) for the other node to take over, plus
 * time for the new owner to record a step the paused node still has in hand.
 */
export const LEASE_MS = 5_000;
const PAUSE_MS = LEASE_MS + 3_000;
/** Under the mixed load a node starts a step every few tens of ms; 5 s without one is a stall. */
const IN_FLIGHT_WAIT_MS = 5_000;

/**
 * SIGSTOP while the node has a step in hand. The step seen in flight may end in
 * the few ms before the signal lands (1 pause in ~10 on a quiet machine, more
 * under load), and a pause with nothing in hand leaves the fence nothing to
 * refuse: the log of a stopped node no longer changes, so it tells, and the
 * node is let go at once to try again.
 */
async function pauseWithStepInHand(node: ChaosNode): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await untilWorkInHand(node.stepLog, IN_FLIGHT_WAIT_MS);
    node.pause();
    // The stop is asynchronous: a write the node had begun lands within a few ms.
    await sleep(STOP_SETTLE_MS);
    if (stepsInFlight(node.stepLog) > 0 || attempt === PAUSE_TRIES) return;
    node.resume();
  }
}
const STOP_SETTLE_MS = 20;
const PAUSE_TRIES = 10;

const servers: Backend["name"][] = ["postgres", "mysql"];
const all: Backend["name"][] = ["sqlite", "postgres", "mysql"];

/** Node b with two nodes; the only node on SQLite (one process per SQLite file). */
function lastNode(t: FaultTarget): ChaosNode {
  const n = t.nodes[t.nodes.length - 1];
  if (!n) throw new Error("no node to break");
  return n;
}

function proxyOf(t: FaultTarget): FaultProxy {
  if (!t.proxy) throw new Error("this fault needs the database proxy");
  return t.proxy;
}

export const faults: readonly Fault[] = [
  {
    name: "db-cut",
    backends: servers,
    // Three cuts 1 s apart: pooled, checked-out and LISTEN connections all die mid-use.
    async run(t) {
      const proxy = proxyOf(t);
      for (let i = 0; i < 3; i++) {
        if (i > 0) await sleep(1_000);
        proxy.cut();
      }
      return Date.now();
    },
  },
  {
    name: "db-restart",
    backends: servers,
    // 3 s down: every connection cut, new ones refused, as while a server restarts.
    async run(t) {
      const proxy = proxyOf(t);
      proxy.refuse(true);
      await sleep(3_000);
      proxy.refuse(false);
      return Date.now();
    },
  },
  {
    name: "db-blackhole",
    backends: servers,
    // 10 s of silence: no error, no answer, as when a host or a switch disappears.
    async run(t) {
      const proxy = proxyOf(t);
      proxy.blackhole(true);
      await sleep(10_000);
      proxy.blackhole(false);
      return Date.now();
    },
  },
  {
    name: "node-kill",
    backends: all,
    // kill -9 of node b (on SQLite the one node), restarted at once; its runs are taken over
    // when their lease ends (on SQLite by the restarted node itself).
    async run(t) {
      const b = lastNode(t);
      await untilWorkInHand(b.stepLog, IN_FLIGHT_WAIT_MS);
      b.kill9();
      await sleep(500);
      await b.start();
      return Date.now();
    },
  },
  {
    name: "node-stop",
    backends: all,
    // SIGSTOP past the lease: b's runs move to a; after SIGCONT b's late writes must be refused.
    // On SQLite (one node) nobody takes over: the node must carry on after SIGCONT.
    async run(t) {
      const b = lastNode(t);
      await pauseWithStepInHand(b);
      await sleep(PAUSE_MS);
      b.resume();
      return Date.now();
    },
  },
  {
    name: "disk-full",
    backends: ["sqlite"],
    needsDisk: true,
    // 3 s with no free byte on the database's file system.
    async run(t) {
      if (!t.disk) throw new Error("disk-full needs the small disk");
      t.disk.fill();
      await sleep(3_000);
      t.disk.free();
      return Date.now();
    },
  },
];
