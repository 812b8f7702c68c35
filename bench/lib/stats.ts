/** Percentiles over recorded latencies (ms), nearest-rank. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Summary {
  count: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
}

export function summarize(latencies: number[], seconds: number): Summary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    seconds: round(seconds, 3),
    perSecond: round(sorted.length / seconds, 1),
    p50: round(percentile(sorted, 50), 3),
    p99: round(percentile(sorted, 99), 3),
  };
}

export const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

export function median(xs: number[]): number {
  return percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
}
