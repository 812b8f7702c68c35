/**
 * CodeNames (definitions/code-names.ts) from this process's registries and
 * the workers' records in the store: a name registered here counts at once,
 * any other when a worker recorded serving it within the TTL
 * (served-workflows.ts, the same rule as a start of a remote workflow).
 */
import type { CodeKind, CodeNames } from "../definitions/code-names.ts";
import type { RunStore } from "./run-store-port.ts";
import { ServedWorkflows } from "./served-workflows.ts";

export class ServedCodeNames implements CodeNames {
  private readonly served: ServedWorkflows;

  constructor(
    store: Pick<RunStore, "lastServed">,
    /** The names registered in this process, read at every check (registries grow). */
    private readonly local: (kind: CodeKind) => readonly string[],
    now: () => number = Date.now,
  ) {
    this.served = new ServedWorkflows(store, now);
  }

  async known(kind: CodeKind, names: readonly string[]): Promise<ReadonlySet<string>> {
    const here = new Set(this.local(kind));
    const found = new Set<string>();
    for (const name of names) {
      if (
        here.has(name) ||
        (await this.served.isServed(name, kind === "steps" ? "step" : "workflow"))
      )
        found.add(name);
    }
    return found;
  }
}
