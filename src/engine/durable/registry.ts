/** Workflow name → definition. Versioning of running code is ctx.patched(), not names. */
import { taskflowError } from "../../domain/errors.ts";
import { isWorkflowDefinition, type AnyWorkflowDefinition } from "./types.ts";

export class WorkflowRegistry {
  private readonly byName = new Map<string, AnyWorkflowDefinition>();

  constructor(defs: Iterable<AnyWorkflowDefinition> = []) {
    for (const d of defs) this.register(d);
  }

  register(def: AnyWorkflowDefinition): this {
    const known = this.byName.get(def.name);
    if (known !== undefined && known !== def) {
      throw taskflowError("WorkflowRegisteredTwice", { name: def.name });
    }
    this.byName.set(def.name, def);
    return this;
  }

  /** Registers every workflow definition a module exports (named or default). */
  registerModule(mod: Record<string, unknown>): number {
    let n = 0;
    for (const v of Object.values(mod)) {
      if (isWorkflowDefinition(v)) {
        this.register(v);
        n++;
      }
    }
    return n;
  }

  get(name: string): AnyWorkflowDefinition | undefined {
    return this.byName.get(name);
  }

  require(name: string): AnyWorkflowDefinition {
    const d = this.byName.get(name);
    if (d === undefined)
      throw taskflowError("WorkflowNotFound", { detail: `workflow '${name}' was not found` });
    return d;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
