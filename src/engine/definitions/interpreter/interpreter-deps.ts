/** What the interpreter workflow needs besides ctx: definitions, and the runs for cancellations and answers. */
import type { RunStore } from "../../durable/run-store-port.ts";
import type { ExpressionSandbox } from "../expression-sandbox.ts";
import type { DefinitionCache } from "./definition-cache.ts";
import type { ResponseWaiters } from "./response-waiters.ts";

export interface InterpreterDeps {
  definitions: DefinitionCache;
  runs: RunStore;
  responses: ResponseWaiters;
  /** Where expressions are evaluated, under their budget; default: the process's sandbox. */
  expressions?: Pick<ExpressionSandbox, "evaluate">;
}
