/**
 * What a serving process does with a promise rejection nobody handled.
 *
 * Node's default is to crash. For a node serving requests that turns one
 * stray promise — a driver's internal one, a hook's — into an outage of every
 * request in flight (the failure this guards against: one connection error
 * took a server down). An unhandled rejection is a bug to fix, not a broken
 * process: the code that made the promise has moved on and holds no state
 * half-changed, so it is logged at error level with its stack and the process
 * keeps serving. A synchronous uncaught exception still ends the process
 * (Node's default): that one can leave state half-changed.
 */
export interface RejectionLog {
  error(obj: object, msg: string): void;
}

/** Installs the handler; returns its removal. */
export function logUnhandledRejections(log: RejectionLog): () => void {
  const onRejection = (reason: unknown) =>
    log.error({ err: reason }, "unhandled promise rejection (a bug); the process keeps running");
  process.on("unhandledRejection", onRejection);
  return () => process.off("unhandledRejection", onRejection);
}
