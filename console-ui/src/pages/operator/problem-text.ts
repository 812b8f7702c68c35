/** What an error from the API says to a person: the problem's detail, else its title. */
import { ApiProblem } from "../../api.ts";

export function problemText(e: unknown): string {
  if (e instanceof ApiProblem) return e.detail ?? `${e.status} ${e.title}`;
  return e instanceof Error ? e.message : String(e);
}
