/**
 * Rate-limited logging of refused authentication (a missing or wrong API key,
 * a stored key outside its tenant, a key beyond the lookup budget). A flood of wrong keys is the attacker's
 * choice of volume: logged line for line it would fill the disk and bury
 * everything else (a flood once wrote 55,000 lines in 10 s). So at most
 * `maxLines` refusals are logged per `windowMs`; the rest are counted, and one
 * line at the window's end says how many were not logged.
 *
 * A refusal that is not logged is not logged at all: the request is marked
 * quiet (`request.quietLog`), so neither the error handler's "request refused"
 * nor the per-request "request completed" line is written for it either.
 */
import type { FastifyBaseLogger, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** Set when this request's lines are left out of the log (a suppressed refusal). */
    quietLog?: boolean;
  }
}

export interface RefusalLogOptions {
  /** Default 10 s. */
  windowMs?: number;
  /** Refusals logged per window; default 20. */
  maxLines?: number;
}

export class RefusalLog {
  readonly #windowMs: number;
  readonly #maxLines: number;
  #windowStart = 0;
  #lines = 0;
  #suppressed = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RefusalLogOptions = {}) {
    this.#windowMs = options.windowMs ?? 10_000;
    this.#maxLines = options.maxLines ?? 20;
  }

  /**
   * True when this refusal may be logged; false when this window's lines are
   * spent, and the request is then marked quiet and counted.
   */
  admit(req: FastifyRequest): boolean {
    const now = Date.now();
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now;
      this.#lines = 0;
    }
    if (this.#lines < this.#maxLines) {
      this.#lines++;
      return true;
    }
    req.quietLog = true;
    this.#suppressed++;
    // The server's logger, not the request's: the summary belongs to no one request.
    if (this.#timer === undefined) {
      const log = req.server.log;
      this.#timer = setTimeout(
        () => this.#summarise(log),
        this.#windowStart + this.#windowMs - now,
      );
      this.#timer.unref();
    }
    return false;
  }

  #summarise(log: FastifyBaseLogger): void {
    this.#timer = undefined;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    log.warn(
      { suppressed, windowMs: this.#windowMs },
      `${suppressed} more refused request(s) not logged (at most ${this.#maxLines} per ${this.#windowMs / 1000} s)`,
    );
  }
}
