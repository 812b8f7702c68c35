/**
 * A structural diff of two JSON documents as `{ pointer, op, from?, to? }`:
 * objects compared key by key (keys of `to` in its order, then removed ones),
 * arrays index by index (a changed element is a replace, extra ones at the
 * end are adds or removes), anything else by value. Small on purpose: no
 * move/copy detection and no minimal edit script, which a reviewer comparing
 * two versions does not need — and no dependency to keep.
 */
import { isRecord, pointer } from "./json-pointer.ts";

export type DiffEntry =
  | { pointer: string; op: "add"; to: unknown }
  | { pointer: string; op: "remove"; from: unknown }
  | { pointer: string; op: "replace"; from: unknown; to: unknown };

export function diffJson(from: unknown, to: unknown): DiffEntry[] {
  const out: DiffEntry[] = [];
  diffAt("", from, to, out);
  return out;
}

function diffAt(at: string, a: unknown, b: unknown, out: DiffEntry[]): void {
  if (isRecord(a) && isRecord(b)) {
    for (const [k, v] of Object.entries(b)) {
      if (Object.hasOwn(a, k)) diffAt(pointer(at, k), a[k], v, out);
      else out.push({ pointer: pointer(at, k), op: "add", to: v });
    }
    for (const [k, v] of Object.entries(a)) {
      if (!Object.hasOwn(b, k)) out.push({ pointer: pointer(at, k), op: "remove", from: v });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) diffAt(pointer(at, i), a[i], b[i], out);
    for (let i = common; i < b.length; i++)
      out.push({ pointer: pointer(at, i), op: "add", to: b[i] });
    // Removed from the end backwards, so applying the entries in order keeps indexes valid.
    for (let i = a.length - 1; i >= common; i--) {
      out.push({ pointer: pointer(at, i), op: "remove", from: a[i] });
    }
    return;
  }
  // Both containers were handled above; what is left are scalars or a change of kind.
  if (a !== b) out.push({ pointer: at, op: "replace", from: a, to: b });
}

/**
 * Two definitions' differences, without `/version`: the published number is
 * written into each stored body, so every pair of versions would differ there
 * and a definition published again unchanged would read as changed.
 */
export function definitionDiff(from: unknown, to: unknown): DiffEntry[] {
  return diffJson(from, to).filter((e) => e.pointer !== "/version");
}
