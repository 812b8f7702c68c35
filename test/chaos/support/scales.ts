/**
 * How much load a scenario carries. "quick" is the version inside `npm test`
 * (the whole chaos test under 2 minutes on a shared 2-core machine); "full"
 * is `npm run chaos`.
 */
import type { Scale } from "./run-scenario.ts";

export const scales: Record<"quick" | "full", Scale> = {
  quick: {
    load: { cycleActors: 2, runActors: 2, maxCycles: 200, maxRuns: 200 },
    steadyMs: 1_500,
  },
  full: {
    load: { cycleActors: 3, runActors: 3, maxCycles: 2_000, maxRuns: 2_000 },
    steadyMs: 4_000,
  },
};
