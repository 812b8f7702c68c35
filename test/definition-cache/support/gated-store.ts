/**
 * A DefinitionVersionStore in front of the real SQL one that counts every
 * call and can hold the next call of a method — before it reaches the store
 * (a slow write: the fence is open, nothing written yet) or after the store
 * answered (a slow reader: it read the old rows, its answer arrives late) —
 * until the test releases it, or make the next call reject without reaching
 * the store. Nothing is mocked: every call that runs, runs on the database.
 */
import type { DefinitionVersion, VersionSummary } from "../../../src/domain/definition-version.ts";
import type {
  DefinitionVersionStore,
  PublishedHead,
  PublishOutcome,
  PublishVersion,
  RetractOutcome,
  SaveDraft,
  TenantHead,
} from "../../../src/engine/definitions/definition-version-store-port.ts";

type Method = keyof DefinitionVersionStore;

export interface Hold {
  /** Resolves when the held call got there: with the store's answer when held "after". */
  readonly reached: Promise<unknown>;
  release(): void;
}

interface Pending {
  phase: "before" | "after";
  reached: (value: unknown) => void;
  released: Promise<void>;
}

export class GatedStore implements DefinitionVersionStore {
  /** Calls per method, counted when the call starts. */
  readonly calls: Record<Method, number> = {
    saveDraft: 0,
    publishVersion: 0,
    retractVersion: 0,
    getVersion: 0,
    latestPublished: 0,
    listVersions: 0,
    publishedHeads: 0,
    triggerHeads: 0,
  };
  private readonly holds = new Map<Method, Pending>();
  private readonly failures = new Map<Method, Error>();

  constructor(private readonly inner: DefinitionVersionStore) {}

  /** Holds the next call of `method` before it reaches the store, or after it answered. */
  hold(method: Method, phase: "before" | "after"): Hold {
    let reached!: (value: unknown) => void;
    let release!: () => void;
    const reachedP = new Promise<unknown>((r) => (reached = r));
    const released = new Promise<void>((r) => (release = r));
    this.holds.set(method, { phase, reached, released });
    return { reached: reachedP, release };
  }

  /** The next call of `method` rejects with `error` without reaching the store. */
  failNext(method: Method, error: Error): void {
    this.failures.set(method, error);
  }

  saveDraft(cmd: SaveDraft): Promise<void> {
    return this.run("saveDraft", () => this.inner.saveDraft(cmd));
  }
  publishVersion(cmd: PublishVersion): Promise<PublishOutcome> {
    return this.run("publishVersion", () => this.inner.publishVersion(cmd));
  }
  retractVersion(c: { tenantId: string; key: string; version: number }): Promise<RetractOutcome> {
    return this.run("retractVersion", () => this.inner.retractVersion(c));
  }
  getVersion(t: string, key: string, version: number): Promise<DefinitionVersion | undefined> {
    return this.run("getVersion", () => this.inner.getVersion(t, key, version));
  }
  latestPublished(tenantId: string, key: string): Promise<DefinitionVersion | undefined> {
    return this.run("latestPublished", () => this.inner.latestPublished(tenantId, key));
  }
  listVersions(tenantId: string, key: string): Promise<VersionSummary[]> {
    return this.run("listVersions", () => this.inner.listVersions(tenantId, key));
  }
  publishedHeads(tenantId: string): Promise<PublishedHead[]> {
    return this.run("publishedHeads", () => this.inner.publishedHeads(tenantId));
  }
  triggerHeads(): Promise<TenantHead[]> {
    return this.run("triggerHeads", () => this.inner.triggerHeads());
  }

  private async run<T>(method: Method, call: () => Promise<T>): Promise<T> {
    this.calls[method]++;
    const failure = this.failures.get(method);
    if (failure !== undefined) {
      this.failures.delete(method);
      throw failure;
    }
    const held = this.holds.get(method);
    if (held === undefined) return call();
    this.holds.delete(method);
    if (held.phase === "before") {
      held.reached(undefined);
      await held.released;
      return call();
    }
    const value = await call();
    held.reached(value);
    await held.released;
    return value;
  }
}
