/**
 * What the mixed load feeds a "chaos-mix" run and what the run must return:
 * shared by the workflow module (in the nodes) and the checker (in the test).
 */
export interface MixInput {
  n: number;
  /** The scenario's tag: approver ids stay unique across scenarios on one database. */
  tag: string;
}

export const signalAdd = (n: number) => n % 7;
export const taskBonus = (n: number) => 100 + (n % 5);
export const approverOf = (n: number, tag: string) => `ap-${tag}-${n}`;

/** s0 + s1 + s2 return n, n + 1, n + 2; then the signal's add and the task's bonus. */
export function expectedMixOutput(n: number): { n: number; total: number } {
  return { n, total: 3 * n + 3 + signalAdd(n) + taskBonus(n) };
}
