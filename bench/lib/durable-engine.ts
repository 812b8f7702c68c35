/**
 * What the durable bench drives: an engine embedded in this process that can
 * start the 3-step workflow and resolve when that run has completed. Both
 * TaskFlow and DBOS run the same workflow body: three trivial steps, each
 * returning a small value computed from the previous one.
 */
export interface DurableEngine {
  readonly name: string;
  readonly backend: "postgres" | "sqlite";
  /** Starts one run with input `i`; resolves when it has completed (durably recorded). */
  runOne(i: number): Promise<void>;
  /** Checks the outputs of recent runs (outside the timed loops); throws on a wrong one. */
  verify(): Promise<void>;
  /** Runs the engine dropped as "lost" and re-executed later (TaskFlow's worker outcome). */
  lostOutcomes?(): number;
  close(): Promise<void>;
}

export const STEPS_PER_WORKFLOW = 3;

/** The expected output of run `i`, so a figure never counts a broken run. */
export const expectedOutput = (i: number) => `r${(i + 1) * 2}`;
