/** The definition cache's ledger as /v1/admin/cache/mutations sends it (docs/definition-cache.md). */
import type { IsoTime } from "./common.ts";

/** An incomplete fence: a cache mutation whose writer has not completed it yet. */
export interface CacheMutation {
  /** The ledger row's id (ids only grow). */
  id: number;
  mutationId: string;
  scope: "workflow" | "routes";
  /** host/pid/boot id of the process that began it. */
  owner: string;
  createdAt: IsoTime;
  /** Milliseconds since createdAt, by the answering node's clock. */
  ageMs: number;
}

export interface CacheMutationList {
  items: CacheMutation[];
}

/** `completed` is false when the fence was already completed: nothing changed. */
export interface CacheMutationCompleted {
  mutationId: string;
  completed: boolean;
}
