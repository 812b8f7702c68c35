/**
 * The wire contract: the type of every JSON body the REST API v1 sends or
 * accepts, written once. The client uses them; the server's views are checked
 * against them (`satisfies`, so a drift fails tsc); the Console imports them
 * type-only. By family, one file each.
 */
export * from "./common.ts";
export * from "./problem.ts";
export * from "./tasks.ts";
export * from "./processes.ts";
export * from "./runs.ts";
export * from "./definitions.ts";
export * from "./keys.ts";
export * from "./cache.ts";
