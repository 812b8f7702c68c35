/**
 * The engine's JSON, typed once in the client's wire contract (src/client/wire), the
 * types the server's views are checked against. Type-only: nothing of src/client
 * reaches the Console's bundle.
 */
export type * from "../../src/client/wire/index.ts";
