/**
 * A published version, parsed once and kept with its scopes and vars schema
 * compiled: a published number never changes, so the compiled form is cached
 * per (tenant, key, version) for as long as there is room (an LRU). Its
 * expressions are compiled where they are evaluated, in the expression sandbox.
 */
import { taskflowError } from "../../../domain/errors.ts";
import { compileSchema, type CompiledSchema } from "../schema-compiler.ts";
import type { Branch, ProcessDefinition, State } from "../definition-language.ts";

/** Where a run's states come from: the definition's top level, or a parallel branch in it. */
export type BranchPath = readonly (string | number)[];

export interface Scope {
  start: string;
  states: Record<string, State>;
}

export class CompiledDefinition {
  private readonly scopes = new Map<string, Scope>();
  private varsCheck: CompiledSchema | null | undefined;

  constructor(
    readonly key: string,
    readonly version: number,
    readonly definition: ProcessDefinition,
  ) {}

  /** The states of the top level (empty path) or of a branch: [state, index, state, index, …]. */
  scope(path: BranchPath = []): Scope {
    const id = path.join("\u0000");
    let s = this.scopes.get(id);
    if (s !== undefined) return s;
    s = { start: this.definition.start, states: this.definition.states };
    for (let i = 0; i + 1 < path.length; i += 2) {
      const parallel: State | undefined = s.states[String(path[i])];
      const branch: Branch | undefined =
        parallel?.type === "parallel" ? parallel.branches[Number(path[i + 1])] : undefined;
      if (branch === undefined) {
        throw new Error(
          `definition '${this.key}' v${this.version} has no branch ${path.join("/")}`,
        );
      }
      s = { start: branch.start, states: branch.states };
    }
    this.scopes.set(id, s);
    return s;
  }

  /**
   * The `vars` schema compiled, or null when the definition has none. A
   * version published before a rule it breaks (a recursive schema, a pattern
   * RE2 cannot run) is refused as a conflict on every start, naming why.
   */
  varsValidator(): CompiledSchema | null {
    if (this.varsCheck !== undefined) return this.varsCheck;
    const schema = this.definition.vars;
    if (schema === undefined) return (this.varsCheck = null);
    const outcome = compileSchema(schema);
    if (!outcome.ok) {
      const why = outcome.errors.map((e) => `/vars${e.pointer} ${e.reason}`).join("; ");
      throw taskflowError("VarsSchemaUnrunnable", { version: this.version, key: this.key, why });
    }
    this.varsCheck = outcome;
    return this.varsCheck;
  }
}
