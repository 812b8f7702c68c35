/**
 * The clock port: where the engine reads the time it writes into rows
 * (createdAt, claimedAt, completedAt, a version's publishedAt), so a test can
 * hand it a clock it moves itself.
 *
 * Glossary
 * - now: epoch milliseconds (Date.now() in production); the engine only
 *   compares and stores it, never formats it.
 */
export interface Clock {
  now(): number;
}
