/**
 * A steady load of definition reads: `readers` loops, each reading the next
 * key by latestPublished or getVersion(1) in turn, checking every answer
 * against the body the store holds, and counting reads, errors and the
 * slowest read per phase (the test names the phases as it goes).
 */
import type { DefinitionVersionStore } from "../../../src/engine/definitions/definition-version-store-port.ts";

export interface Warned {
  at: number;
  fields: Record<string, unknown>;
  message: string;
}

export interface PhaseFigures {
  reads: number;
  maxMs: number;
}

export interface LoadResult {
  startedAt: number;
  endedAt: number;
  phases: Record<string, PhaseFigures>;
  /** Date.now() at each read's start. */
  readStarts: number[];
  errors: string[];
  wrong: string[];
}

export class ReadLoad {
  private current = "up";
  private stopped = false;
  private next = 0;
  private readonly result: LoadResult;
  private readonly loops: Promise<void>[];

  constructor(
    private readonly store: Pick<DefinitionVersionStore, "latestPublished" | "getVersion">,
    private readonly tenantId: string,
    /** key → the published version 1's body. */
    private readonly expected: ReadonlyMap<string, string>,
    readers: number,
  ) {
    this.result = {
      startedAt: Date.now(),
      endedAt: 0,
      phases: { up: { reads: 0, maxMs: 0 } },
      readStarts: [],
      errors: [],
      wrong: [],
    };
    this.loops = Array.from({ length: readers }, () => this.loop());
  }

  phase(name: string): void {
    this.current = name;
    this.result.phases[name] ??= { reads: 0, maxMs: 0 };
  }

  async stop(): Promise<LoadResult> {
    this.stopped = true;
    await Promise.all(this.loops);
    this.result.endedAt ||= Date.now();
    return this.result;
  }

  private async loop(): Promise<void> {
    const keys = [...this.expected.keys()];
    while (!this.stopped) {
      const i = this.next++;
      const key = keys[i % keys.length]!;
      const phase = this.result.phases[this.current]!;
      this.result.readStarts.push(Date.now());
      const t0 = performance.now();
      try {
        const got =
          i % 2 === 0
            ? await this.store.latestPublished(this.tenantId, key)
            : await this.store.getVersion(this.tenantId, key, 1);
        if (got?.key !== key || got.version !== 1 || got.body !== this.expected.get(key)) {
          this.result.wrong.push(`${key}: ${JSON.stringify(got)?.slice(0, 120)}`);
        }
      } catch (e) {
        this.result.errors.push(`${key}: ${(e as Error).message}`);
      }
      phase.reads++;
      phase.maxMs = Math.max(phase.maxMs, performance.now() - t0);
    }
  }
}
