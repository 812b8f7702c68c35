/**
 * Runs `op` from `concurrency` loops until `total` operations are done or
 * `maxSeconds` pass (whichever is first), recording each operation's latency.
 * Bounded in count and time, so a bench always stops by itself.
 */
export async function runConcurrent(
  concurrency: number,
  total: number,
  maxSeconds: number,
  op: (i: number) => Promise<void>,
): Promise<{ latencies: number[]; seconds: number; errors: number; firstError?: unknown }> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: unknown;
  const start = performance.now();
  const deadline = start + maxSeconds * 1000;
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      try {
        await op(i);
        latencies.push(performance.now() - t0);
      } catch (e) {
        errors++;
        firstError ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, seconds: (performance.now() - start) / 1000, errors, firstError };
}
