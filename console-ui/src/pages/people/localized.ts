/**
 * A label or help text given as text, or as text per language (`{ en, fa }`), in the
 * reader's language: the exact tag, then its language alone, then English, then the
 * first one given.
 */
import type { LocalizedText } from "../../wire.ts";

// Through globalThis: the unit tests import this module in Node, which has no DOM types.
export const readerLanguage = (): string =>
  (globalThis as { navigator?: { language?: string } }).navigator?.language ?? "en";

export function localized(
  t: LocalizedText | null | undefined,
  lang = readerLanguage(),
): string | null {
  if (t === null || t === undefined) return null;
  if (typeof t === "string") return t;
  return t[lang] ?? t[lang.split("-")[0] ?? ""] ?? t["en"] ?? Object.values(t)[0] ?? null;
}
