/**
 * DATABASE_URL's pure helpers (the SQLite file a URL names, the SQLite path, a
 * printable form without the password) for the CLI's words about where things
 * are kept. They stay in the store adapter beside the dialects and coordination
 * SQL that use them; re-exported here so the CLI needs no adapter import
 * (lint/boundaries.js: src/cli may import the composition root, not adapters).
 */
export { redactUrl, sqlitePathOf } from "../adapters/store/database-url.ts";
export { databaseFileOf } from "../adapters/store/dialects/dialect-for.ts";
