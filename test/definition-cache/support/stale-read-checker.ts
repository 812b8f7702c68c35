/**
 * The property of the three-node test: no read that started after the
 * publish of version v of key k returned (+ a bound, for the bounded mode)
 * saw a version below v. Publishes and reads are recorded as they end, with
 * times from one monotonic clock; check() looks at the reads recorded since
 * its last call.
 *
 * Per key, publishes are kept in the order their answers arrived with the
 * highest version returned so far, so "the newest version whose publish had
 * returned by t" is a binary search, not a scan of thousands of publishes.
 */
import assert from "node:assert/strict";

export interface ReadRecord {
  node: number;
  key: string;
  start: number;
  end: number;
  version: number;
}

export interface PublishRecord {
  key: string;
  version: number;
  /** When its 201 arrived. */
  returned: number;
}

interface Returned {
  returned: number;
  /** The highest version of the key whose publish had returned by then. */
  highest: number;
  version: number;
}

export class StaleReadChecker {
  private readonly returned = new Map<string, Returned[]>();
  private readonly reads: ReadRecord[] = [];
  private checked = 0;
  private publishes = 0;
  private racing = 0;
  private readonly versionsSeen = new Map<string, Set<number>>();

  /** `boundMs`: 0 for strict; the bounded mode's poll + slack. */
  constructor(private readonly boundMs: number) {}

  published(p: PublishRecord): void {
    const list = this.returned.get(p.key) ?? [];
    const seen = this.versionsSeen.get(p.key) ?? new Set<number>();
    assert.ok(!seen.has(p.version), `version ${p.version} of ${p.key} was given twice`);
    seen.add(p.version);
    this.versionsSeen.set(p.key, seen);
    const last = list.at(-1);
    if (last !== undefined) assert.ok(p.returned >= last.returned, "one monotonic clock");
    list.push({
      returned: p.returned,
      highest: Math.max(last?.highest ?? 0, p.version),
      version: p.version,
    });
    this.returned.set(p.key, list);
    this.publishes++;
  }

  read(r: ReadRecord): void {
    this.reads.push(r);
  }

  /** Fails with the first stale read among those recorded since the last call. */
  check(): void {
    for (; this.checked < this.reads.length; this.checked++) {
      const r = this.reads[this.checked]!;
      const due = this.newestReturnedBefore(r.key, r.start - this.boundMs);
      if (due === undefined) continue;
      // A read that started while a newer publish than `due` was in flight raced it.
      if (this.newestReturnedBefore(r.key, r.end)!.highest > due.highest) this.racing++;
      assert.ok(
        r.version >= due.highest,
        `node ${r.node} served ${r.key} v${r.version} to a read that started ` +
          `${(r.start - due.returned).toFixed(1)} ms after v${due.highest}'s publish returned ` +
          `(bound ${this.boundMs} ms)`,
      );
    }
  }

  summary(): { publishes: number; reads: number; readsRacingAPublish: number } {
    return {
      publishes: this.publishes,
      reads: this.reads.length,
      readsRacingAPublish: this.racing,
    };
  }

  /** The last publish of `key` whose answer arrived before `t` (its `highest` is what counts). */
  private newestReturnedBefore(key: string, t: number): Returned | undefined {
    const list = this.returned.get(key) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.returned < t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : list[lo - 1];
  }
}
