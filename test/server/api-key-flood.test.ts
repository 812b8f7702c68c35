/**
 * The stored-key flood of test/unit/server/api-key-flood.test.ts on a real
 * backend: keys in PostgreSQL through the sql coordination, each unknown key a
 * real query. A legitimate key, accepted once before the flood, gets every one
 * of its answers while random `tfk_…` keys fill the unknown keys' budget
 * (issue 21, item 7: 11 of 13 were 503s).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { setImmediate as turn, setTimeout as sleep } from "node:timers/promises";
import Fastify from "fastify";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { ApiKeys } from "../../src/engine/coordination/api-keys.ts";
import { requireApiKey } from "../../src/server/hooks/auth.ts";
import { installErrorHandling } from "../../src/server/errors/error-mapping.ts";
import { storedKeyCheck } from "../../src/server/hooks/stored-key-check.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";

const CACHE_MS = 200;
const postgres = { name: "postgres" } as const;

void test(
  "PostgreSQL: a flood of unknown keys never costs a known key its answer",
  await backendTestOptions(postgres),
  async () => {
    const db = await createTestDatabase(postgres);
    const database = openDatabase(db.url);
    await database.migrate();
    const coordination = openCoordination({
      kind: "sql",
      keyPrefix: `t${randomBytes(4).toString("hex")}:`,
      sql: database.coordinationContext,
    });
    const keys = new ApiKeys(coordination);
    const app = Fastify();
    installErrorHandling(app);
    app.addHook(
      "onRequest",
      requireApiKey([], {
        stored: storedKeyCheck(keys, { cacheMs: CACHE_MS, maxEntries: 100, maxLookups: 4 }),
      }),
    );
    app.get("/whoami", (req) => ({ keyId: req.apiKeyId }));
    await app.ready();
    const as = (key: string) => app.inject({ url: "/whoami", headers: { "x-api-key": key } });
    try {
      const steady = await keys.create({ name: "steady" });
      assert.equal((await as(steady.key)).statusCode, 200);
      let flooding = true;
      const flood = { 401: 0, 503: 0, other: 0 };
      const attackers = Array.from({ length: 16 }, async () => {
        while (flooding) {
          const r = await as(`tfk_${randomBytes(32).toString("base64url")}`);
          if (r.statusCode === 401 || r.statusCode === 503) flood[r.statusCode]++;
          else flood.other++;
          await turn();
        }
      });
      const answers: number[] = [];
      const started = Date.now();
      while (Date.now() - started < 6 * CACHE_MS) {
        answers.push((await as(steady.key)).statusCode);
        await sleep(25);
      }
      flooding = false;
      await Promise.all(attackers);
      assert.deepEqual(
        answers.filter((s) => s !== 200),
        [],
        `${answers.length} answers; the flood ${JSON.stringify(flood)}`,
      );
      assert.equal(flood.other, 0);
      assert.ok(flood[401] > 20, `the flood was looked up: ${JSON.stringify(flood)}`);
    } finally {
      await app.close();
      await coordination.close();
      await database.close();
      await db.drop();
    }
  },
);
