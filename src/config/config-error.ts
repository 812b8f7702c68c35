/**
 * A configuration problem. The message is one line that names the layer and
 * the key, so the CLI can print it as is and exit without a stack trace.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly issues: readonly string[]) {
    super(`config error: ${issues.join("; ")}`);
  }
}

export function isConfigError(e: unknown): e is ConfigError {
  return e instanceof ConfigError;
}

/** Thrown by a value parser; the validator adds the layer and key in front. */
export class InvalidValue extends Error {
  constructor(
    message: string,
    /** A part of the key, e.g. the group id inside `groups`. */
    readonly sub?: string,
  ) {
    super(message);
  }
}
