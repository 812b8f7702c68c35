/**
 * A worker's side of served workflows (served-workflows.ts): records the
 * names it has code for when it starts, then refreshes them every
 * SERVED_REFRESH_MS, so nodes without the code accept starts of them. Each
 * refresh also forgets rows older than the TTL (dead or replaced workers).
 *
 * Nothing is withdrawn when the worker stops: its successor (a restart, a
 * deploy) may come seconds later, and starts in between should queue, not 404.
 */
import type { RunStore } from "./run-store-port.ts";
import { SERVED_REFRESH_MS, SERVED_TTL_MS } from "./served-workflows.ts";

export interface ServedRecorderOptions {
  everyMs?: number | undefined;
  ttlMs?: number | undefined;
  now?: () => number;
  /** Told when a record failed; the next refresh tries again. */
  onError?: (e: unknown) => void;
  /** The code steps of this process, read at every record like the workflows. */
  steps?: (() => readonly string[]) | undefined;
}

export class ServedRecorder {
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<RunStore, "recordServed">,
    private readonly node: string,
    /** Read at every record: a registry may still grow after the worker was made. */
    private readonly workflows: () => readonly string[],
    private readonly options: ServedRecorderOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Records once (awaited, so a start right after is accepted elsewhere), then periodically. */
  async start(): Promise<void> {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.record(), this.options.everyMs ?? SERVED_REFRESH_MS);
    this.timer.unref();
    await this.record();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async record(): Promise<void> {
    const workflows = this.workflows();
    const steps = this.options.steps?.() ?? [];
    // A worker of no workflow and no step (none registered yet) has nothing to say.
    if (workflows.length === 0 && steps.length === 0) return;
    const now = this.now();
    try {
      await this.store.recordServed({
        node: this.node,
        workflows,
        steps,
        now,
        forgetBefore: now - (this.options.ttlMs ?? SERVED_TTL_MS),
      });
    } catch (e) {
      try {
        this.options.onError?.(e);
      } catch {
        // The hook is for logging; its failure must not reject a timer's promise.
      }
    }
  }
}
