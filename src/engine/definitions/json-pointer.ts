/** JSON pointers (RFC 6901): every finding of the validator and the diff names its place with one. */

/** A pointer token: "~" and "/" escaped. */
export const escapeToken = (t: string | number): string =>
  String(t).replaceAll("~", "~0").replaceAll("/", "~1");

/** `base` extended by `tokens`, e.g. pointer("/states", "a/b") → "/states/a~1b". */
export const pointer = (base: string, ...tokens: (string | number)[]): string =>
  base + tokens.map((t) => `/${escapeToken(t)}`).join("");

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
