/**
 * The mixed load of a scenario: task-cycle actors, run actors, and one
 * finisher that completes the runs' human tasks, all against both nodes.
 * Bounded in count (cycles, runs) and in time (the caller's hard deadline).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { newLedger, type Ledger } from "./ledger.ts";
import { RetryingCaller } from "./retrying-caller.ts";
import { finishRunTask, runIsFinal, startAndSignal } from "./run-cycle.ts";
import { taskCycle } from "./task-cycle.ts";

export interface LoadShape {
  cycleActors: number;
  runActors: number;
  /** Upper bounds, whatever the time: the load stops by itself. */
  maxCycles: number;
  maxRuns: number;
}

export interface MixedLoad {
  readonly ledger: Ledger;
  readonly caller: RetryingCaller;
  /** Stops new cycles and runs, then waits for the actors and the last human tasks. */
  stop(): Promise<void>;
}

/** A pause between an actor's cycles: about 20 writes/s per actor, not a flood on 2 cores. */
const THINK_MS = 50;
/** The finisher looks at the pending inboxes this often. */
const FINISH_EVERY_MS = 150;

export function startMixedLoad(
  bases: readonly string[],
  tag: string,
  shape: LoadShape,
  hardDeadline: number,
): MixedLoad {
  const ledger = newLedger();
  const caller = new RetryingCaller(bases, hardDeadline);
  let stopping = false;
  let cycles = 0;
  let runs = 0;
  const awaitingTask = new Set<number>();
  const live = () => !stopping && Date.now() < hardDeadline;

  const cycleActor = async () => {
    while (live() && cycles < shape.maxCycles) {
      await taskCycle(caller, ledger, tag, cycles++);
      await sleep(THINK_MS);
    }
  };
  const runActor = async () => {
    while (live() && runs < shape.maxRuns) {
      const n = runs++;
      if (await startAndSignal(caller, ledger, tag, n)) awaitingTask.add(n);
      await sleep(THINK_MS);
    }
  };
  let actorsDone = false;
  const finisher = async () => {
    while (Date.now() < hardDeadline && !(actorsDone && awaitingTask.size === 0)) {
      for (const n of [...awaitingTask]) {
        if (await finishRunTask(caller, ledger, tag, n)) awaitingTask.delete(n);
        // Once the load has stopped, a run that ended without its task is given up on.
        else if (actorsDone && (await runIsFinal(caller, tag, n))) awaitingTask.delete(n);
      }
      await sleep(FINISH_EVERY_MS);
    }
  };

  const actors = Promise.all([
    ...Array.from({ length: shape.cycleActors }, cycleActor),
    ...Array.from({ length: shape.runActors }, runActor),
  ]).finally(() => (actorsDone = true));
  const finishing = finisher();

  return {
    ledger,
    caller,
    async stop() {
      stopping = true;
      await actors;
      await finishing;
    },
  };
}
