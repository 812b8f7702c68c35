/**
 * What the TTL cache holds per idempotency key: a marker while the first
 * request runs, then the answer it got.
 */
import type { JsonValue } from "../../engine/index.ts";

/** Held while the first request runs; `token` tells this attempt's marker from a later one's. */
export interface RunningRecord {
  state: "running";
  requestHash: string;
  token: string;
}

/** The first request's answer, replayed to every repeat. */
export interface DoneRecord {
  state: "done";
  requestHash: string;
  status: number;
  contentType: string;
  body: string;
}

/**
 * Left by a request whose answer was retryable: the key is free again. A
 * tombstone rather than a delete, because the cache has no compare-and-delete
 * and a plain delete could remove a newer claim's marker; the next claim
 * replaces it by compare-and-set.
 */
export interface ReleasedRecord {
  state: "released";
  requestHash: string;
  token: string;
}

export type IdempotencyRecord = RunningRecord | DoneRecord | ReleasedRecord;

/** A cached value read back; undefined for anything that is not a record (never trusted blindly). */
export function asRecord(value: JsonValue | undefined): IdempotencyRecord | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const v = value as Record<string, JsonValue>;
  if (typeof v.requestHash !== "string") return undefined;
  if ((v.state === "running" || v.state === "released") && typeof v.token === "string") {
    return v as unknown as RunningRecord | ReleasedRecord;
  }
  if (
    v.state === "done" &&
    typeof v.status === "number" &&
    typeof v.contentType === "string" &&
    typeof v.body === "string"
  ) {
    return v as unknown as DoneRecord;
  }
  return undefined;
}
