/**
 * One pass over a JSON body's text, before JSON.parse, for what parsing would
 * hide or misreport:
 *
 * - nesting deeper than the limit (schemas like NextAssignment are recursive,
 *   and validating a 50,000-level chain would overflow the stack: a 500);
 * - numbers JSON.parse silently changes: `1e309` becomes Infinity (stored as
 *   null), `1e-400` becomes 0, `-0` becomes 0 once serialised, and an integer
 *   beyond 2^53 such as 9007199254740993 comes back as …992;
 * - keys the prototype-poisoning guard refuses (`__proto__`, and `prototype`
 *   inside `constructor`), which it reports as "Body is not valid JSON".
 *
 * It tracks where it is (object keys, array indexes) so the answer names the
 * place: `vars.x: number 1e309 is out of range`. Text that is not JSON at all
 * is left for JSON.parse to refuse.
 */
import { childPath } from "../../domain/storable-text.ts";

interface Frame {
  object: boolean;
  /** Objects: the key of the member being read (null before the first). */
  key: string | null;
  /** Arrays: the index of the element being read. */
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** "<path>: <problem>" for the first problem found, or null. */
export function scanJsonText(text: string, maxDepth: number): string | null {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey && stack.length > 0) {
        const key = decodeKey(text.slice(i, end + 1));
        const problem = keyProblem(stack, key);
        if (problem !== null) return `${pathOf(stack, key)}: ${problem}`;
        stack[stack.length - 1]!.key = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) return `JSON nested deeper than ${maxDepth} levels`;
      stack.push({ object: c === 0x7b, key: null, index: 0 });
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.object) expectKey = true;
      else if (top) top.index++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const end = numberEnd(text, i);
      const token = text.slice(i, end);
      const problem = numberProblem(token);
      if (problem !== null) return `${pathOf(stack, null)}: ${problem}`;
      i = end - 1;
    }
  }
  return null;
}

/** Index of the closing quote of the string opening at `start` (or the last index if unclosed). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return text.length - 1;
}

/** Digits, sign, point and exponent: every character a JSON number token may hold. */
function numberEnd(text: string, start: number): number {
  let i = start + 1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const digit = c >= 0x30 && c <= 0x39;
    if (!digit && c !== 0x2b && c !== 0x2d && c !== 0x2e && c !== 0x45 && c !== 0x65) break;
  }
  return i;
}

/** A key with a broken escape is returned raw: JSON.parse refuses the body anyway. */
function decodeKey(quoted: string): string {
  if (!quoted.includes("\\")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

function keyProblem(stack: readonly Frame[], key: string): string | null {
  if (key === "__proto__") return "keys named __proto__ are not accepted";
  const parent = stack[stack.length - 2];
  if (key === "prototype" && parent?.object && parent.key === "constructor") {
    return "a prototype key inside a constructor key is not accepted";
  }
  return null;
}

const MAX_SHOWN = 40;
const show = (token: string) =>
  token.length > MAX_SHOWN ? `${token.slice(0, MAX_SHOWN)}… (${token.length} characters)` : token;
const INTEGER = /^-?[0-9]+$/;

/** Why JSON.parse would not keep this number as written, or null. */
export function numberProblem(token: string): string | null {
  const value = Number(token);
  // Not a number at all ("-", "1e"): JSON.parse reports the syntax error.
  if (Number.isNaN(value)) return null;
  if (!Number.isFinite(value)) return `number ${show(token)} is out of range`;
  if (value === 0) {
    const mantissa = token.split(/[eE]/)[0]!;
    if (/[1-9]/.test(mantissa)) return `number ${show(token)} is too small (it would become 0)`;
    if (Object.is(value, -0)) return `number ${show(token)} is negative zero (it would become 0)`;
    return null;
  }
  // An integer literal must be one exact double; 2^53 + 1 is not. (Fractions are
  // doubles by nature: 0.1 is kept as the nearest one, as every JSON reader does.)
  if (INTEGER.test(token) && !Number.isSafeInteger(value) && BigInt(token) !== BigInt(value)) {
    return `integer ${show(token)} cannot be kept exactly (beyond 2^53)`;
  }
  return null;
}

/** Built only when there is a problem to report. */
function pathOf(stack: readonly Frame[], pendingKey: string | null): string {
  let path = "";
  stack.forEach((f, i) => {
    const key = i === stack.length - 1 && pendingKey !== null ? pendingKey : f.key;
    if (!f.object) path += `[${f.index}]`;
    else if (key !== null) path = childPath(path, key);
  });
  return path === "" || path.startsWith("[") ? `body${path}` : path;
}
