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

function linearFormats(ajv: Ajv): [string, Format][] {
  const out: [string, Format][] = [["regex", isLinearRegExp]];
  for (const [name, format] of Object.entries(ajv.formats)) {
    if (!(format instanceof RegExp)) continue;
    let test: (s: string) => boolean;
    try {
      const re = linearRegExp(format.source, format.flags.replace("g", ""));
      test = (s) => re.test(s);
    } catch {
      test = (s) => s.length <= MAX_LOOKAROUND_INPUT && format.test(s);
    }
    out.push([name, test]);
  }
  return out;
}
