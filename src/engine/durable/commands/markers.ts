/**
 * Markers: ctx.now, ctx.random, ctx.uuid and ctx.patched. Each records an
 * event the first time (a write the call does not wait for: the value is
 * known at once) and returns the recorded value on replay.
 */
import { randomUUID } from "node:crypto";
import type { Runtime } from "../runtime.ts";

const NOW = ["now"] as const;
const RANDOM = ["random"] as const;
const UUID = ["uuid"] as const;

export function recordedNow(rt: Runtime): number {
  const seq = rt.cursor.next();
  const ev = rt.cursor.match(seq, NOW, null);
  if (ev !== undefined) return ev.data.value;
  const value = rt.options.now();
  rt.writer.mark({ seq, type: "now", name: null, at: rt.options.now(), data: { value } });
  return value;
}

export function recordedRandom(rt: Runtime): number {
  const seq = rt.cursor.next();
  const ev = rt.cursor.match(seq, RANDOM, null);
  if (ev !== undefined) return ev.data.value;
  const value = Math.random();
  rt.writer.mark({ seq, type: "random", name: null, at: rt.options.now(), data: { value } });
  return value;
}

export function recordedUuid(rt: Runtime): string {
  const seq = rt.cursor.next();
  const ev = rt.cursor.match(seq, UUID, null);
  if (ev !== undefined) return ev.data.value;
  const value = randomUUID();
  rt.writer.mark({ seq, type: "uuid", name: null, at: rt.options.now(), data: { value } });
  return value;
}

/**
 * Whether this run takes the patched path at this point: code that has the
 * patch records a marker when it runs live; a run that recorded something
 * else here ran under code without the patch and keeps the old path. Decided
 * once per patch id and run (`decided`).
 */
export function patched(rt: Runtime, decided: Map<string, boolean>, id: string): boolean {
  rt.halts.check();
  const known = decided.get(id);
  if (known !== undefined) return known;
  const seq = rt.cursor.peek();
  const ev = rt.cursor.at(seq);
  let result: boolean;
  if (ev === undefined) {
    rt.cursor.next();
    rt.writer.mark({ seq, type: "patch", name: id, at: rt.options.now(), data: null });
    result = true;
  } else if (ev.type === "patch" && ev.name === id) {
    rt.cursor.next();
    result = true;
  } else {
    result = false;
  }
  decided.set(id, result);
  return result;
}
