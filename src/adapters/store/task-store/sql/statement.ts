/**
 * A fixed SQL text with named parameters (`@name`), turned into PostgreSQL's
 * positional `$n` once, when its module loads; a call binds a typed object of
 * parameters, so no positional array has to be kept in step with the text.
 *
 * Why fixed texts at all, executed as CompiledQuery without the query builder:
 * built with Kysely's `sql` template, the completion statement (7 CTEs, 35
 * parameters) was parsed into operation nodes, frozen and compiled on every
 * call, and its 2.5 KB text then hashed again to find its prepared-statement
 * name. At 32 cycles in flight a completion cost the server 0.50 ms of CPU
 * (measured per request type with /proc, 2026-11-30). A constant text keeps
 * its hash, so the name lookup is cheap too.
 *
 * Every occurrence of a name gets its own `$n`: PostgreSQL deduces one type per
 * parameter, and one value may need two types in two places.
 */
import { CompiledQuery } from "kysely";

export interface Statement<P extends object, R> {
  /** The text as sent, with `$n` placeholders. */
  readonly text: string;
  bind(params: P): CompiledQuery<R>;
}

export function statement<P extends object, R>(text: string): Statement<P, R> {
  const names: (keyof P & string)[] = [];
  const positional = text.replace(/@([a-z][a-z0-9_]*)/gi, (_m, name: string) => {
    names.push(name as keyof P & string);
    return `$${names.length}`;
  });
  return {
    text: positional,
    bind(params) {
      const values = names.map((n) => {
        if (!(n in params)) throw new Error(`statement parameter @${n} is not bound`);
        return params[n];
      });
      return CompiledQuery.raw(positional, values);
    },
  };
}
