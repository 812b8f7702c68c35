/** What replay will see: the JSON form of a value (Dates become strings, undefined stays). */
export function toJson(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}
