/**
 * Which code steps and workflows exist, for the reference checks of validate
 * and publish (reference-checks.ts). Only workers have the code: a node asks
 * its own registries and the store's record of what workers served
 * (served-workflows.ts), so an API-only node and the CLI know as much as a
 * worker does.
 */
export type CodeKind = "steps" | "workflows";

export interface CodeNames {
  /** Which of `names` exist somewhere: registered here, or served by a worker within the TTL. */
  known(kind: CodeKind, names: readonly string[]): Promise<ReadonlySet<string>>;
}
