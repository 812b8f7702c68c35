/**
 * The RunStore calls an execution makes, with every rejection turned into a
 * halt: workflow code between ctx calls cannot catch a store outage and carry
 * on as if a step had failed (or, worse, record a failure), and every later
 * call throws the same halt. A plain decorator (no Proxy), so renaming a port
 * method fails to compile here instead of silently skipping the halt.
 */
import type { Halt } from "./halts.ts";
import type { RunStore } from "./run-store-port.ts";

export type ExecutionStore = Pick<
  RunStore,
  | "appendEvent"
  | "consumeSignal"
  | "peekSignal"
  | "dropSignals"
  | "getRun"
  | "createRun"
  | "requestCancel"
>;

export function haltingOnError(store: RunStore, onError: (e: unknown) => Halt): ExecutionStore {
  const halt = (e: unknown): never => {
    throw onError(e);
  };
  return {
    appendEvent: (lease, event) => store.appendEvent(lease, event).catch(halt),
    consumeSignal: (lease, id, event) => store.consumeSignal(lease, id, event).catch(halt),
    peekSignal: (tenantId, runId, name) => store.peekSignal(tenantId, runId, name).catch(halt),
    dropSignals: (lease, names) => store.dropSignals(lease, names).catch(halt),
    getRun: (tenantId, id) => store.getRun(tenantId, id).catch(halt),
    createRun: (r) => store.createRun(r).catch(halt),
    requestCancel: (tenantId, id, now) => store.requestCancel(tenantId, id, now).catch(halt),
  };
}
