/**
 * A fixed SQL text with named parameters, bound from a typed row object.
 *
 * Why: the durable hot path runs fixed texts as CompiledQuery without the
 * query builder (building them with Kysely cost ~14 % of the process's CPU on
 * SQLite, profile of `npm run bench -- durable sqlite`, 2026-11-30), and those
 * texts used to take positional arrays of up to 17 values, where a value in
 * the wrong slot is a silent bug. Here the text names its parameters
 * (`:tenantId`) and a call passes an object of that shape; the names are
 * resolved once, at module load, into the `?` and the `$n` spelling.
 *
 * Each occurrence of a name is its own positional parameter: PostgreSQL
 * deduces one type per parameter, and a reused one can be deduced
 * inconsistently. A name is `:` and an identifier, not preceded by `:` or a
 * word character, so `::bigint` casts and `'__child:'` literals stay as they are.
 */
import { CompiledQuery } from "kysely";
import type { ParamStyle } from "../../dialects/store-dialect.ts";

const NAME = /(?<![:\w]):([A-Za-z_]\w*)/g;

/** Binds a row object to the text in one placeholder style. */
export type Bind<P> = (params: P) => CompiledQuery;

/** `text` in both placeholder styles. Every name must be a key of P. */
export function statement<P extends object>(text: string): Record<ParamStyle, Bind<P>> {
  const names: (keyof P & string)[] = [];
  const positional = text.replace(NAME, (_, name: string) => {
    names.push(name as keyof P & string);
    return "?";
  });
  let n = 0;
  const numbered = text.replace(NAME, () => `$${++n}`);
  const values = (params: P): unknown[] =>
    names.map((k) => {
      const v = params[k];
      if (v === undefined) throw new Error(`SQL parameter :${k} is missing`);
      return v;
    });
  return {
    positional: (params) => CompiledQuery.raw(positional, values(params)),
    numbered: (params) => CompiledQuery.raw(numbered, values(params)),
  };
}
