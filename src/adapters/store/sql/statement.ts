/**
 * A fixed SQL text with named parameters, bound from a typed row object; used
 * by both stores' hot statements (run-store/sql/*, task-store/sql/*).
 *
 * Why fixed texts, run as CompiledQuery without the query builder: building
 * the durable statements with Kysely cost ~14 % of the process's CPU on SQLite
 * (profile of `npm run bench -- durable sqlite`, 2026-11-30); the PostgreSQL
 * completion (7 CTEs, 35 parameters) was parsed into operation nodes, frozen
 * and compiled on every call, and its 2.5 KB text hashed again for its
 * prepared-statement name — 0.50 ms of server CPU per completion at 32 cycles
 * in flight (2026-11-30); a constant text keeps its hash. And those texts
 * used to take positional arrays of up to 17 values, where a value in the
 * wrong slot is a silent bug. Here the text names its parameters
 * (`:tenantId`) and a call passes an object of that shape; the names are
 * resolved once, at module load, into the `?` and the `$n` spelling.
 *
 * Each occurrence of a name is its own positional parameter: PostgreSQL
 * deduces one type per parameter, and a reused one can be deduced
 * inconsistently. A name is `:` and an identifier, not preceded by `:` or a
 * word character, so `::bigint` casts and `'__child:'` literals stay as they are.
 */
import { CompiledQuery } from "kysely";
import type { ParamStyle } from "../dialects/store-dialect.ts";

const NAME = /(?<![:\w]):([A-Za-z_]\w*)/g;

/** Binds a row object to the text in one placeholder style; R is the row it returns. */
export type Bind<P, R = unknown> = (params: P) => CompiledQuery<R>;

/** A text in both placeholder styles. */
export type Statement<P, R = unknown> = Record<ParamStyle, Bind<P, R>>;

/** `text` in both placeholder styles. Every name must be a key of P. */
export function statement<P extends object, R = unknown>(text: string): Statement<P, R> {
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
