/**
 * An ioredis connection (`new Redis(…)`) the host made and owns. Typed by a
 * few of its members, not as ioredis' class, so the published types do not
 * load ioredis: a host without Redis needs none, a host with it has it.
 * TaskFlow uses it as ioredis' Redis (create-taskflow.ts casts it where the
 * adapters take it).
 */
export interface RedisConnection {
  readonly status: string;
  duplicate(...args: never[]): unknown;
  quit(...args: never[]): Promise<unknown>;
}
