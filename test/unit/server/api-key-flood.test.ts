/**
 * A flood of random stored-shape keys (none of them valid) against a node
 * that also serves a legitimate stored key: the legitimate key must get every
 * answer (issue 21, item 7: 11 of 13 of its requests were 503s), the flood is
 * still held to the unknown keys' lookup budget, and the log stays bounded
 * (that flood wrote 55,000 lines in 10 s), with the lines it leaves out
 * counted.
 *
 * On the memory coordination, whose tokens answer with a few milliseconds'
 * delay here, as a backend's round trip would: without it every lookup ends
 * in the microtask it started in and no budget is ever reached.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { test } from "node:test";
import { setImmediate as turn, setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { pino } from "pino";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { ApiKeys } from "../../../src/engine/coordination/api-keys.ts";
import type { OpaqueTokens } from "../../../src/engine/coordination/opaque-tokens-port.ts";
import { requireApiKey } from "../../../src/server/hooks/auth.ts";
import { installErrorHandling } from "../../../src/server/errors/error-mapping.ts";
import { OneLinePerRequest } from "../../../src/server/hooks/logging.ts";
import { RefusalLog } from "../../../src/server/hooks/refusal-log.ts";
import { storedKeyCheck } from "../../../src/server/hooks/stored-key-check.ts";

const CACHE_MS = 200;
const MAX_LOOKUPS = 8;
const WINDOW_MS = 300;
const MAX_LINES = 5;

const randomKey = () => `tfk_${randomBytes(32).toString("base64url")}`;

void test("a flood of unknown keys: every request of a known key answered, the budget held, the log bounded", async (t) => {
  const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
  const tokens = coordination.tokens;
  let verifying = 0;
  let mostAtOnce = 0;
  const slow: OpaqueTokens = {
    ...tokens,
    verify: async (...args) => {
      mostAtOnce = Math.max(mostAtOnce, ++verifying);
      try {
        await sleep(3);
        return await tokens.verify(...args);
      } finally {
        verifying--;
      }
    },
  };
  const keys = new ApiKeys({ tokens: slow });
  const lines: Array<{ msg: string; suppressed?: number }> = [];
  const logTo = new Writable({
    write: (c: Buffer, _e, done) => {
      for (const l of c.toString().split("\n")) if (l !== "") lines.push(JSON.parse(l));
      done();
    },
  });
  const loggerInstance: FastifyBaseLogger = pino({ level: "info" }, logTo);
  const app = Fastify({
    loggerInstance,
    logController: new OneLinePerRequest(),
  });
  installErrorHandling(app);
  app.addHook(
    "onRequest",
    requireApiKey([], {
      stored: storedKeyCheck(keys, {
        cacheMs: CACHE_MS,
        maxEntries: 100,
        maxLookups: MAX_LOOKUPS,
      }),
      refusals: new RefusalLog({ windowMs: WINDOW_MS, maxLines: MAX_LINES }),
    }),
  );
  app.get("/whoami", (req) => ({ keyId: req.apiKeyId }));
  await app.ready();
  const as = (key: string) => app.inject({ url: "/whoami", headers: { "x-api-key": key } });

  try {
    const steady = await keys.create({ name: "steady" });
    const rare = await keys.create({ name: "rare" });
    // Both accepted once before the flood: known keys of this node.
    for (const k of [steady, rare]) assert.equal((await as(k.key)).statusCode, 200);

    let flooding = true;
    const flood = { 401: 0, 503: 0, other: 0 };
    const attacker = async () => {
      while (flooding) {
        const r = await as(randomKey());
        if (r.statusCode === 401 || r.statusCode === 503) flood[r.statusCode]++;
        else flood.other++;
        // A refusal can complete without leaving the microtask queue: let timers run.
        await turn();
      }
    };
    const attackers = Array.from({ length: 24 }, attacker);

    // The steady key every 25 ms, across several cache lifetimes (its answer refreshed
    // ahead); the rare one after its answer has gone stale, twice.
    const answers: number[] = [];
    const started = Date.now();
    while (Date.now() - started < 6 * CACHE_MS) {
      answers.push((await as(steady.key)).statusCode);
      await sleep(25);
    }
    const rareAnswers = [(await as(rare.key)).statusCode];
    await sleep(CACHE_MS + 50);
    rareAnswers.push((await as(rare.key)).statusCode);
    flooding = false;
    await Promise.all(attackers);

    assert.ok(answers.length >= 8, `only ${answers.length} requests of the steady key`);
    assert.deepEqual(
      answers.filter((s) => s !== 200),
      [],
      `the steady key's ${answers.length} answers`,
    );
    assert.deepEqual(rareAnswers, [200, 200], "a known key whose answer went stale");

    const refused = flood[401] + flood[503];
    t.diagnostic(`flood ${JSON.stringify(flood)}; steady key ${answers.length} requests`);
    assert.equal(flood.other, 0);
    assert.ok(flood[503] > 0 && flood[401] > 0, JSON.stringify(flood));
    assert.ok(refused > 300, `the flood: only ${refused} requests`);
    // The unknown keys' budget, plus the two known keys' own lookups.
    assert.ok(mostAtOnce <= MAX_LOOKUPS + 2, `${mostAtOnce} lookups at once`);

    // One line per logged refusal says why (the 503's is the error handler's).
    const refusalLines = () =>
      lines.filter(
        (l) => l.msg === "rejected API key" || /unknown API keys are being checked/.test(l.msg),
      );
    const summaries = () => lines.filter((l) => l.suppressed !== undefined);
    const counted = () => summaries().reduce((n, l) => n + l.suppressed!, 0);
    // The last window's summary comes at its end (a timer, late on a busy machine).
    for (let i = 0; i < 50 && refusalLines().length + counted() < refused; i++) await sleep(100);
    assert.equal(refusalLines().length + counted(), refused, "every refusal logged or counted");
    const windows = Math.ceil((Date.now() - started) / WINDOW_MS) + 1;
    const logged = refusalLines().length;
    assert.ok(logged <= windows * MAX_LINES, `${logged} refusal lines in ${windows} windows`);
    t.diagnostic(
      `${lines.length} log lines, ${counted()} refusals counted in ${summaries().length} summaries`,
    );
    // The legitimate requests' lines, and at most three per logged refusal (its reason, the
    // error handler's, the request's own) and a summary per window: not one per request.
    const most = answers.length + rareAnswers.length + 2 + logged * 3 + windows;
    assert.ok(lines.length <= most, `${lines.length} log lines (at most ${most}) for ${refused}`);
  } finally {
    await app.close();
    await coordination.close();
  }
});

void test("a scoped key sent for another tenant again and again: 403 each time, the lines bounded", async () => {
  const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
  const keys = new ApiKeys(coordination);
  const lines: string[] = [];
  const logTo = new Writable({
    write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()),
  });
  const loggerInstance: FastifyBaseLogger = pino({ level: "info" }, logTo);
  const app = Fastify({ loggerInstance, logController: new OneLinePerRequest() });
  installErrorHandling(app);
  app.addHook(
    "onRequest",
    requireApiKey([], {
      stored: storedKeyCheck(keys),
      refusals: new RefusalLog({ windowMs: 60_000, maxLines: MAX_LINES }),
    }),
  );
  app.get("/whoami", (req) => ({ keyId: req.apiKeyId }));
  await app.ready();
  try {
    const acme = await keys.create({ name: "acme", tenant: "acme" });
    for (let i = 0; i < 200; i++) {
      const r = await app.inject({
        url: "/whoami",
        headers: { "x-api-key": acme.key, "x-tenant-id": "globex" },
      });
      assert.equal(r.statusCode, 403);
    }
    const text = lines.join("");
    assert.equal(text.match(/API key used outside its tenant/g)?.length, MAX_LINES);
    assert.ok(lines.length <= 3 * MAX_LINES, `${lines.length} lines for 200 refusals`);
  } finally {
    await app.close();
    await coordination.close();
  }
});
