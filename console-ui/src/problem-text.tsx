/** What an error from the API says to a person: the status, title and detail of the problem. */
import { ApiProblem } from "./api.ts";

export function problemText(e: unknown): string {
  if (e instanceof ApiProblem) return `${e.status} ${e.title}: ${e.detail ?? ""}`.trim();
  return e instanceof Error ? e.message : String(e);
}

/** The alert a page shows when a read or an action failed; nothing without an error. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p role="alert" className="error">
      {problemText(error)}
    </p>
  );
}
