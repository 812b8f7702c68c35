/** Drives runs by hand (no worker loop) against any RunStore, with a settable clock. */
import { executeRun, type Outcome } from "../../src/engine/durable/executor.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import type { RunStore } from "../../src/engine/durable/run-store-port.ts";
import type { AnyWorkflowDefinition } from "../../src/engine/durable/types.ts";
import type { ContextOptions } from "../../src/engine/durable/context.ts";

export class Clock {
  constructor(public t = 1_700_000_000_000) {}
  now = () => this.t;
  advance(ms: number) {
    this.t += ms;
  }
}

export class Harness {
  readonly registry: WorkflowRegistry;
  readonly outcomes: Outcome[] = [];
  /** Extra context options (e.g. humanTasks: an inbox bridge). */
  contextOptions: Partial<ContextOptions> = {};
  constructor(
    readonly store: RunStore,
    defs: AnyWorkflowDefinition[],
    readonly clock = new Clock(),
    public owner = "w1",
  ) {
    this.registry = new WorkflowRegistry(defs);
  }

  async start(workflow: string, input: unknown, id: string, tenantId = "t1") {
    return this.store.createRun({
      tenantId,
      id,
      workflow,
      input,
      parentRunId: null,
      startedBy: "alice",
      now: this.clock.now(),
    });
  }

  /** Claims and executes due runs until none is due. Returns the outcomes of this call. */
  async drain(max = 100): Promise<Outcome[]> {
    const out: Outcome[] = [];
    for (let i = 0; i < max; i++) {
      const now = this.clock.now();
      const runs = await this.store.claimRuns(this.owner, now, now + 5_000, 10);
      if (runs.length === 0) break;
      for (const r of runs) {
        out.push(
          await executeRun(r, {
            store: this.store,
            registry: this.registry,
            owner: this.owner,
            contextOptions: {
              now: this.clock.now,
              inMemoryWaitMs: 0,
              inMemoryBackoffMs: 50,
              ...this.contextOptions,
            },
          }),
        );
      }
    }
    this.outcomes.push(...out);
    return out;
  }
}
