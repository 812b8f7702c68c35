/** How times, durations and JSON read on the operator pages. */

/** A moment as the operator's locale writes it, to the millisecond (runs move fast). */
export function formatTime(at: string | number): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  return d.toLocaleString(undefined, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    fractionalSecondDigits: 3,
  });
}

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min", "3 d 4 h": precise when short, rough when long. */
export function formatDuration(ms: number): string {
  if (ms < 0) return "0 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Milliseconds from `from` to `to`, both ISO strings or epoch ms. */
export function between(from: string | number, to: string | number): number {
  return new Date(to).getTime() - new Date(from).getTime();
}

export function formatJson(v: unknown): string {
  return v === undefined ? "—" : JSON.stringify(v, null, 2);
}
