/** Small text helpers shared by the admin pages. */

/** An ISO time as the browser's locale shows it; "—" for none. */
export function formatTime(iso: string | null): string {
  if (iso === null) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** "leave v2", or "leave draft" for version 0. */
export function versionLabel(key: string, version: number): string {
  return version === 0 ? `${key} draft` : `${key} v${version}`;
}

/** A diff value as one line of JSON; "—" when absent. */
export function jsonText(value: unknown): string {
  return value === undefined ? "—" : JSON.stringify(value);
}
