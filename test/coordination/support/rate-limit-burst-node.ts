/**
 * One node of the two-node rate limit test, as its own process: opens a
 * coordination on the backend its parent names (the same database or Redis
 * and key prefix as the other node), says "ready", waits for "go" on stdin so
 * both nodes fire together, then fires `count` concurrent consumes on a
 * fixed and a sliding limiter and prints how many each allowed, as JSON.
 *
 * argv[2]: JSON { kind: "sql" | "redis", url, keyPrefix, count, cap, windowMs }.
 */
import { createInterface } from "node:readline";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import type { WindowKind } from "../../../src/engine/coordination/rate-limiter-port.ts";

export interface BurstNodeArgs {
  kind: "sql" | "redis";
  url: string;
  keyPrefix: string;
  count: number;
  cap: number;
  windowMs: number;
}

/** What the node prints: allowed consumes per window kind. */
export type BurstNodeResult = Record<WindowKind, number>;

const args = JSON.parse(process.argv[2] ?? "{}") as BurstNodeArgs;
const db = args.kind === "sql" ? openDatabase(args.url) : undefined;
const coordination = openCoordination({
  kind: args.kind,
  keyPrefix: args.keyPrefix,
  sql: db?.coordinationContext,
  redisUrl: args.kind === "redis" ? args.url : undefined,
});

async function burst(window: WindowKind): Promise<number> {
  const limiter = coordination.limiters.limiter({
    name: "two-nodes",
    points: args.cap,
    windowMs: args.windowMs,
    window,
  });
  const results = await Promise.all(
    Array.from({ length: args.count }, () => limiter.consume("acme", `cap-${window}`)),
  );
  return results.filter((r) => r.allowed).length;
}

// Connected (and, on SQL, the statement path warmed) before the start signal.
await coordination.cache.get("acme", "warm-up");
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === "go") break;
lines.close();
const [fixed, sliding] = await Promise.all([burst("fixed"), burst("sliding")]);
process.stdout.write(`${JSON.stringify({ fixed, sliding } satisfies BurstNodeResult)}\n`);
await coordination.close();
await db?.close();
