/**
 * The in-process side of `respond`: a run that reaches its first respond
 * state on this node hands the answer to whoever waits for it here at once.
 * Remembered briefly (an LRU) because the answer may come before the waiter
 * asks. Another node finds it in the run's history instead (awaitResponse).
 */
import { LRUCache } from "lru-cache";
import type { DefinitionResponse } from "../definition-runs.ts";

const REMEMBERED = 10_000;

export class ResponseWaiters {
  private readonly answers = new LRUCache<string, DefinitionResponse>({ max: REMEMBERED });
  private readonly waiters = new Map<string, Set<(r: DefinitionResponse) => void>>();

  deliver(tenantId: string, runId: string, response: DefinitionResponse): void {
    const id = waiterKey(tenantId, runId);
    if (this.answers.has(id)) return; // the first respond is the answer
    this.answers.set(id, response);
    const ws = this.waiters.get(id);
    this.waiters.delete(id);
    for (const w of ws ?? []) w(response);
  }

  known(tenantId: string, runId: string): DefinitionResponse | undefined {
    return this.answers.get(waiterKey(tenantId, runId));
  }

  /** Resolves with the answer when it is delivered here, or null after `ms`. */
  wait(tenantId: string, runId: string, ms: number): Promise<DefinitionResponse | null> {
    const hit = this.known(tenantId, runId);
    if (hit !== undefined) return Promise.resolve(hit);
    const id = waiterKey(tenantId, runId);
    return new Promise((resolve) => {
      const ws = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, ws);
      const done = (r: DefinitionResponse | null) => {
        clearTimeout(timer);
        ws.delete(done);
        if (ws.size === 0 && this.waiters.get(id) === ws) this.waiters.delete(id);
        resolve(r);
      };
      const timer = setTimeout(() => done(null), ms);
      timer.unref?.();
      ws.add(done);
    });
  }
}

const waiterKey = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
