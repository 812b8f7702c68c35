/**
 * Completing a task of a definition's userTask: the action must be one of the
 * state's actions, and the submitted vars must match its `form`. Both are
 * read from the referral's vars (written by user-task-state.ts), so the check
 * needs no definition; a required checkbox must be ticked (required-checkboxes.ts).
 * A refused completion changes nothing: the task stays open, and the 400 names
 * the failing pointer.
 *
 * The form is the completion's input, so it is checked after the task's state
 * and the actor's permission (complete.ts's assertRules, on the task read
 * here): a done task is 409 and a stranger 403 whatever they send.
 */
import { LRUCache } from "lru-cache";
import { documentError, type FieldError, taskflowError } from "../../../domain/errors.ts";
import type { Vars } from "../../../domain/vars.ts";
import type { ActorContext } from "../../actor-context.ts";
import type { AssignResult, HumanTaskApi } from "../../human-tasks/human-task-api.ts";
import { assertRules } from "../../human-tasks/complete.ts";
import type { Directory } from "../../directory-port.ts";
import type { TaskStore } from "../../human-tasks/task-store-port.ts";
import { untickedCheckboxErrors } from "../required-checkboxes.ts";
import { compileSchema, type CompiledSchema } from "../schema-compiler.ts";
import { valueFindings } from "../value-check.ts";
import { ACTION_REQUIRED_VAR, ACTIONS_VAR, FORM_VAR } from "./user-task-state.ts";
import { HumanTaskApiDecorator } from "../../human-tasks/human-task-api-decorator.ts";

/** Task ids known to be plain (about 100 bytes each). */
const PLAIN_TASKS_CACHED = 100_000;

export class DefinitionTaskChecks extends HumanTaskApiDecorator {
  // Tasks assigned through these use cases belong to no definition (a run assigns through
  // the bridge): their completion skips the read the check needs, as a REST cycle's do.
  readonly #plain = new LRUCache<string, true>({ max: PLAIN_TASKS_CACHED });

  constructor(
    inner: HumanTaskApi,
    private readonly store: TaskStore,
    private readonly directory: Directory,
  ) {
    super(inner);
  }

  override complete: HumanTaskApi["complete"] = async (ctx, taskId, req) => {
    await this.#check(ctx, taskId, req.vars);
    const r = await this.inner.complete(ctx, taskId, req);
    this.#remember(ctx.tenantId, r.next);
    if (r.joined !== r.next) this.#remember(ctx.tenantId, r.joined);
    return r;
  };
  override completeAndEnd: HumanTaskApi["completeAndEnd"] = async (ctx, taskId, req) => {
    await this.#check(ctx, taskId, req.vars);
    return this.inner.completeAndEnd(ctx, taskId, req);
  };
  override assign: HumanTaskApi["assign"] = async (ctx, req) => {
    const r = await this.inner.assign(ctx, req);
    this.#remember(ctx.tenantId, r);
    return r;
  };

  #remember(tenantId: string, r: AssignResult | null): void {
    for (const t of r?.tasks ?? []) this.#plain.set(`${tenantId}\u0000${t.id}`, true);
  }

  async #check(ctx: ActorContext, taskId: string, vars: Vars | undefined): Promise<void> {
    if (this.#plain.has(`${ctx.tenantId}\u0000${taskId}`)) return;
    const found = await this.store.getTaskWithInstance(ctx.tenantId, taskId);
    if (found === undefined) return; // the use case answers 404
    const rv = found.instance.vars;
    if (!rv || (rv[FORM_VAR] === undefined && rv[ACTIONS_VAR] === undefined)) return;
    // The use case checks them again on the task it writes: this read may be stale.
    assertRules({ directory: this.directory }, ctx, found.task);
    const errors: FieldError[] = [];
    const action = vars?.["action"];
    const actions = rv[ACTIONS_VAR];
    if (Array.isArray(actions) && action !== undefined && !actions.includes(action)) {
      errors.push({ pointer: "/action", reason: `must be one of: ${actions.join(", ")}` });
    } else if (action === undefined && rv[ACTION_REQUIRED_VAR] === true) {
      const names = Array.isArray(actions) ? actions.join(", ") : "";
      errors.push({ pointer: "/action", reason: `is required: one of ${names}` });
    }
    const form = rv[FORM_VAR];
    if (typeof form === "object" && form !== null) {
      const { action: _a, ...data } = vars ?? {};
      errors.push(...valueFindings(formCheck(form), data, "/vars", "the completion's vars"));
      errors.push(...untickedCheckboxErrors(form, data));
    }
    if (errors.length > 0) {
      throw documentError("CompletionMismatch", {}, errors);
    }
  }
}

/** The task's form compiled (cached by its text in the compiler). */
function formCheck(form: object): CompiledSchema {
  const outcome = compileSchema(form);
  if (outcome.ok) return outcome;
  // A form published before a rule it breaks: the task cannot be completed through it.
  const why = outcome.errors.map((e) => `/form${e.pointer} ${e.reason}`).join("; ");
  throw taskflowError("FormUncheckable", { why });
}
