/**
 * On SIGINT/SIGTERM: stop accepting requests, let in-flight ones finish, then
 * close the store (the order matters: a request finishing after the store
 * closed would fail). A second signal exits at once.
 */
export interface ShutdownLog {
  info(msg: string): void;
  error(obj: object, msg: string): void;
}

export function closeOnSignals(
  close: () => Promise<void>,
  log: ShutdownLog,
  signals: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"],
): () => void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      log.info(`${signal} again: exiting now`);
      process.exit(1);
    }
    closing = true;
    log.info(`${signal}: shutting down`);
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  for (const s of signals) process.on(s, onSignal);
  return () => signals.forEach((s) => process.off(s, onSignal));
}
