/**
 * The logger a host hands to createTaskflow or startWorker: a pino logger,
 * typed by the members TaskFlow calls rather than as pino's class, so the
 * published types do not load pino (a host that passes none needs no pino
 * types at all). The server derives a redacting child from it with pino's
 * own `child(bindings, { redact })`, so it must be pino (or behave like it)
 * for the API key to stay out of the log.
 */
export interface HostLogger {
  readonly level: string;
  fatal(fields: unknown, message?: string, ...args: unknown[]): void;
  error(fields: unknown, message?: string, ...args: unknown[]): void;
  warn(fields: unknown, message?: string, ...args: unknown[]): void;
  info(fields: unknown, message?: string, ...args: unknown[]): void;
  debug(fields: unknown, message?: string, ...args: unknown[]): void;
  trace(fields: unknown, message?: string, ...args: unknown[]): void;
  child(bindings: Record<string, unknown>, options?: object): HostLogger;
}
