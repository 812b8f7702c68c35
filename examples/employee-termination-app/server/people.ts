/**
 * The demo's people. Each belongs to one company, and a company is a TaskFlow
 * tenant: the backend sends the company as X-Tenant-Id, so nothing of one
 * company's terminations is visible from another's. Groups (hr, it, finance)
 * are the directory TaskFlow checks claims against; the definition assigns
 * its tasks to them, and to the manager by user id.
 */

export type Company = "acme" | "globex";
export type Role = "hr" | "it" | "finance" | "manager";

export interface Person {
  readonly id: string;
  readonly name: string;
  readonly company: Company;
  readonly role: Role;
}

export const PEOPLE: readonly Person[] = [
  { id: "hr-hana", name: "Hana (HR)", company: "acme", role: "hr" },
  { id: "it-ivan", name: "Ivan (IT)", company: "acme", role: "it" },
  { id: "fin-fiona", name: "Fiona (finance)", company: "acme", role: "finance" },
  { id: "mgr-mike", name: "Mike (manager)", company: "acme", role: "manager" },
  // An HR clerk too, so only the tenant keeps acme's HR task out of his inbox.
  { id: "clerk-gus", name: "Gus (HR clerk)", company: "globex", role: "hr" },
];

export const COMPANIES: readonly Company[] = ["acme", "globex"];

export const personById = (id: string): Person | undefined => PEOPLE.find((p) => p.id === id);

/** TaskFlow's static directory: every user, and the groups the definition names. */
export function directory(): { users: string[]; groups: Record<string, string[]> } {
  const members = (role: Role) => PEOPLE.filter((p) => p.role === role).map((p) => p.id);
  return {
    users: PEOPLE.map((p) => p.id),
    groups: { hr: members("hr"), it: members("it"), finance: members("finance") },
  };
}

/** The managers a termination may name: the company's own. */
export const managersOf = (company: Company): Person[] =>
  PEOPLE.filter((p) => p.company === company && p.role === "manager");
