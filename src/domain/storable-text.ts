/**
 * Text every store keeps byte for byte, so a value reads back the same on
 * SQLite, PostgreSQL and MariaDB.
 *
 * Two kinds of JavaScript string do not:
 * - U+0000: PostgreSQL text refuses it ("invalid byte sequence for encoding
 *   UTF8: 0x00", a 500), while SQLite and MariaDB store it.
 * - an unpaired UTF-16 surrogate (U+D800–U+DFFF alone): it has no UTF-8 form;
 *   PostgreSQL and MariaDB get one U+FFFD for it, SQLite three.
 * Both are refused wherever caller text enters: strings and object keys alike.
 */
import { taskflowError } from "./errors.ts";

/** A NUL, or a high surrogate not followed by a low one, or a low one not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be stored, or null when it can. */
export function unstorableReason(s: string): string | null {
  const m = UNSTORABLE.exec(s);
  if (!m) return null;
  if (m[0] === "\u0000") return "text containing a NUL character (U+0000) is not accepted";
  const hex = m[0].charCodeAt(0).toString(16).toUpperCase();
  return `text containing an unpaired surrogate (U+${hex}) is not accepted`;
}

/**
 * The first string or object key in `value` that cannot be stored, as
 * "<path>: <reason>", or null. Paths read like the JSON they came from
 * (`vars.items[2].name`) and start at `root` ("" for a whole request body,
 * whose own path is then printed as `rootLabel`).
 */
export function findUnstorableText(value: unknown, root: string, rootLabel = root): string | null {
  const found = walk(value);
  if (found === null) return null;
  // The path is built only for the one value found: building it for every member cost
  // more than JSON.parse itself on a 1 MiB body of 50,000 keys.
  let path = root;
  for (let i = found.path.length - 1; i >= 0; i--) {
    const part = found.path[i]!;
    path = typeof part === "number" ? `${path}[${part}]` : childPath(path, part);
  }
  // A whole body that is an array: `body[2]`, as the JSON text scan names it.
  const shown = path === "" || path.startsWith("[") ? `${rootLabel}${path}` : path;
  return `${shown}: ${found.reason}`;
}

interface Found {
  /** From the innermost key or index outwards. */
  path: (string | number)[];
  reason: string;
}

/** Recursive: HTTP bodies are at most MAX_JSON_DEPTH deep; an engine caller's value is plain data. */
function walk(value: unknown): Found | null {
  if (typeof value === "string") {
    const reason = unstorableReason(value);
    return reason === null ? null : { path: [], reason };
  }
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i]);
      if (found !== null) return (found.path.push(i), found);
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const keyReason = unstorableReason(key);
    if (keyReason !== null) return { path: [key], reason: `key: ${keyReason}` };
    const found = walk((value as Record<string, unknown>)[key]);
    if (found !== null) return (found.path.push(key), found);
  }
  return null;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `a.b` for identifier keys, `a["x y"]` otherwise (escaped, so a bad key prints safely). */
export function childPath(parent: string, key: string): string {
  const part = IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(truncate(key))}]`;
  return parent === "" ? part.replace(/^\./, "") : `${parent}${part}`;
}

/** Keys are caller text: at most 40 characters of one go into an error message. */
const truncate = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** For the engine's own entry points (an app embedding it has no HTTP layer in front). */
export function assertStorableText(value: unknown, root: string): void {
  const found = findUnstorableText(value, root);
  if (found !== null) throw taskflowError("UnstorableText", { detail: found });
}
