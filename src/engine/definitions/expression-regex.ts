/**
 * The regex engine JSONata uses for a definition's regex literals: RE2 (a
 * WebAssembly build), which matches in linear time, so `/^(a+)+$/` over a long
 * input cannot backtrack for ever — and a single regex call, unlike the steps
 * of an evaluation, cannot be interrupted. JSONata parses a literal into a
 * native RegExp (which is never run) and builds its engine from that.
 */
import { RE2 } from "re2-wasm";

/** re2-wasm refuses patterns without the "u" flag; JSONata's literals carry "g" and maybe "i" / "m". */
export class JsonataRe2 extends RE2 {
  constructor(re: RegExp | string, flags?: string) {
    const source = typeof re === "string" ? re : re.source;
    const f = flags ?? (typeof re === "string" ? "" : re.flags);
    super(source, f.includes("u") ? f : `${f}u`);
  }
}

/** Null when RE2 takes the literal; otherwise why not (a backreference, a lookahead…). */
export function regexProblem(re: RegExp): string | null {
  try {
    new JsonataRe2(re);
    return null;
  } catch (e) {
    return `regex /${re.source}/ is not supported (expressions match in linear time, with RE2: no backreferences or lookaround): ${e instanceof Error ? e.message : String(e)}`;
  }
}
