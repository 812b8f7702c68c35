/**
 * Restarts a node that died by itself, so the scenario can still read back
 * what was acknowledged; every such restart is a failure of the scenario
 * ("no node needed a restart"), counted, never hidden.
 */
import type { ChaosNode } from "./chaos-node.ts";

/** Looks twice a second: a dead node costs the load at most half a second more. */
const WATCH_EVERY_MS = 500;

export function watchNodes(nodes: readonly ChaosNode[]): { restarts: number; stop(): void } {
  const handled = new Map(nodes.map((n) => [n, n.crashes.length]));
  const state = { restarts: 0, stop: () => clearInterval(timer) };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    const dead = nodes.filter((n) => n.crashes.length > handled.get(n)! && !n.alive);
    if (dead.length === 0) return;
    busy = true;
    void Promise.all(
      dead.map(async (n) => {
        handled.set(n, n.crashes.length);
        state.restarts++;
        await n.start().catch(() => undefined);
      }),
    ).finally(() => (busy = false));
  }, WATCH_EVERY_MS);
  return state;
}
