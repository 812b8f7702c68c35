/**
 * The one-time codes port: a short secret for a (subject, purpose), e.g. a
 * login code for a user. One of the five coordination primitives
 * (coordination-port.ts).
 *
 * Glossary
 * - subject, purpose: whom the code is for and what it is for; one live code
 *   per pair — issuing a new one replaces the old one.
 * - code: the digits sent to the person; stored only as a hash, never logged.
 * - attempt: one wrong guess; after `maxAttempts` the code is exhausted.
 * - expired: `ttlMs` passed since it was issued; it verifies as nothing.
 * - consume: a right guess uses the code up, so it works once.
 */

export interface IssueCodeOptions {
  /** How long the code is valid (> 0). Default 10 min. */
  ttlMs?: number;
  /** Wrong guesses allowed before the code is dead (> 0). Default 5. */
  maxAttempts?: number;
  /** Digits in the code (6–12). Default 6. */
  digits?: number;
}

export interface IssuedCode {
  /** The code to send to the person; never stored, never logged. */
  code: string;
  expiresAt: Date;
}

/** ok consumes the code; every other outcome leaves nothing usable behind or counts a guess. */
export type VerifyOutcome = "ok" | "wrong" | "expired" | "exhausted" | "none";

export interface OneTimeCodes {
  /**
   * Issues a code, replacing any earlier one of the subject and purpose.
   * Issuing is itself rate-limited per subject: over that budget it rejects
   * with a RateLimited TaskflowError.
   */
  issue(
    tenant: string,
    subject: string,
    purpose: string,
    options?: IssueCodeOptions,
  ): Promise<IssuedCode>;
  /** Checks a guess; concurrent wrong guesses never exceed the attempt cap. */
  verify(tenant: string, subject: string, purpose: string, code: string): Promise<VerifyOutcome>;
  /**
   * Removes up to `maxEntries` codes that expired without being used (a code
   * nobody guesses again stays behind otherwise); resolves with how many.
   */
  cleanup(maxEntries: number): Promise<number>;
}
