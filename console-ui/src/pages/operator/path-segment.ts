/**
 * A run id or name as one segment of an engine path. The Console's proxy takes only
 * `A-Z a-z 0-9 . _ ~ @ : -` in a segment and refuses percent-encoding, and run ids use
 * `:` and `@` (a child run is `parent:seq`), so those two stay as they are.
 */
export function segment(s: string): string {
  return encodeURIComponent(s).replace(/%3A/gi, ":").replace(/%40/gi, "@");
}

/** The Console's own link to a run's page. */
export const runLink = (runId: string): string => `/runs/${segment(runId)}`;
