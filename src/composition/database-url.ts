/**
 * DATABASE_URL's pure helpers (which backend, the SQLite path, a printable
 * form without the password) for the CLI's words about where things are kept.
 * They stay in adapters/store/database-url.ts, beside the dialects and
 * coordination SQL that use them; re-exported here so the CLI needs no adapter
 * import (eslint.config.js, the src/cli block).
 */
export { backendOf, redactUrl, sqlitePathOf } from "../adapters/store/database-url.ts";
