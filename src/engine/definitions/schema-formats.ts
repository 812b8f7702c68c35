/**
 * The `format`s of tenant-supplied JSON Schemas: ajv-formats' full set, with
 * its regular expressions moved to RE2 (linear-regexp.ts), since a value
 * checked against them comes from whoever starts a run or completes a task.
 * Three of them need lookaround, which RE2 lacks (duration, hostname, url);
 * they keep their backtracking expression, and a value longer than
 * MAX_LOOKAROUND_INPUT fails them without being matched: no duration or
 * hostname is that long, and a url that long is past what browsers send,
 * while the url expression takes a third of a second on 20,000 characters
 * (its cost grows with the square of the length).
 */
import type { Ajv, Format } from "ajv";
import addFormats from "ajv-formats";
import { isLinearRegExp, linearRegExp } from "./linear-regexp.ts";

export const MAX_LOOKAROUND_INPUT = 2_048;

let replaced: [string, Format][] | undefined;

/** Adds the formats (and ajv-formats' formatMinimum/formatMaximum keywords) to `ajv`. */
export function addSchemaFormats(ajv: Ajv): void {
  addFormats.default(ajv);
  replaced ??= linearFormats(ajv);
  for (const [name, format] of replaced) ajv.addFormat(name, format);
}

/**
 * Each regular-expression format as a test compiled on its first use: compiling
 * all of ajv-formats' expressions to RE2 up front took ~110 ms of a server
 * start's ~1 s of CPU (a CPU profile, 2026-12-07), in every process, although
 * most processes check no format at all and none checks every one.
 */
function linearFormats(ajv: Ajv): [string, Format][] {
  const out: [string, Format][] = [["regex", isLinearRegExp]];
  for (const [name, format] of Object.entries(ajv.formats)) {
    if (!(format instanceof RegExp)) continue;
    let test: ((s: string) => boolean) | undefined;
    out.push([name, (s: string) => (test ??= formatTest(format))(s)]);
  }
  return out;
}

function formatTest(format: RegExp): (s: string) => boolean {
  try {
    const re = linearRegExp(format.source, format.flags.replace("g", ""));
    return (s) => re.test(s);
  } catch {
    return (s) => s.length <= MAX_LOOKAROUND_INPUT && format.test(s);
  }
}
