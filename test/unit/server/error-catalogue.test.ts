/**
 * One catalogue, four places: the server's reasons (src/domain/error-reasons.ts)
 * and codes, the client's list (src/client/problem-reasons.ts), the OpenAPI
 * document's Problem schema and the tables of docs/api.md. Like Fastify's
 * test/internals/errors.test.js, a reason added, renamed or dropped in one of
 * them and not the others fails here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ProblemReasons } from "../../../src/client/problem-reasons.ts";
import type { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import {
  ERROR_REASONS,
  ErrorReasons,
  SERVER_PROBLEM_CODES,
} from "../../../src/domain/error-reasons.ts";
import { ErrorCodes } from "../../../src/domain/errors.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { statusOf } from "../../../src/server/errors/error-mapping.ts";
import { stubEngine, testConfig } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

const sorted = (xs: Iterable<string>) => [...xs].sort();
const SERVER_CODES = sorted([...ErrorCodes, ...SERVER_PROBLEM_CODES]);

/** The OpenAPI document's Problem component, as the server serves it (no database). */
async function openapiProblem(): Promise<{ code: string[]; reason: string[] }> {
  const config = testConfig();
  const app = buildServer({
    engine: stubEngine(),
    config,
    runs: {} as DurableRuns,
    ...serverAdapters(config),
  });
  try {
    await app.ready();
    const doc = (await app.inject({ url: "/openapi.json" })).json<{
      components: { schemas: Record<string, { properties: Record<string, { enum: string[] }> }> };
    }>();
    const p = doc.components.schemas.Problem!.properties;
    return { code: p.code!.enum, reason: p.reason!.enum };
  } finally {
    await app.close();
  }
}

/** The rows of the docs/api.md table headed by `head`: the cells without their backticks. */
function docsTable(head: string): string[][] {
  const text = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.replace(/\s+/g, " ").startsWith(head));
  assert.ok(start >= 0, `docs/api.md has a table headed ${head}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim().replace(/^`|`$/g, "")),
    );
  }
  return rows;
}

void test("every reason has a code the server maps to a status", () => {
  for (const [reason, { code }] of Object.entries(ERROR_REASONS)) {
    assert.ok(SERVER_CODES.includes(code), `${reason}: code ${code}`);
    assert.equal(typeof statusOf(code), "number", `${reason}: status of ${code}`);
  }
  // A code's generic reason is named like it (error-reasons.ts): every code has one.
  for (const code of SERVER_CODES)
    assert.equal(ERROR_REASONS[code as keyof typeof ERROR_REASONS].code, code);
});

void test("the client lists the server's reasons", () => {
  assert.deepEqual(sorted(ProblemReasons), sorted(ErrorReasons));
});

void test("the OpenAPI Problem schema lists the server's codes and reasons", async () => {
  const p = await openapiProblem();
  assert.deepEqual(sorted(p.code), SERVER_CODES);
  assert.deepEqual(sorted(p.reason), sorted(ErrorReasons));
});

void test("docs/api.md lists every code and every reason with its code and status", () => {
  const codes = docsTable("| `code` | status |");
  const documented = [...codes.map(([c]) => c!), "Internal", "Unavailable"];
  assert.deepEqual(
    sorted(documented),
    SERVER_CODES,
    "the code table, plus Internal and Unavailable",
  );
  for (const [code, status] of codes) assert.equal(Number(status), statusOf(code as never), code);

  const reasons = docsTable("| `reason` | `code` | status |");
  assert.deepEqual(sorted(reasons.map(([r]) => r!)), sorted(ErrorReasons));
  for (const [reason, code, status] of reasons) {
    const entry = ERROR_REASONS[reason as keyof typeof ERROR_REASONS];
    assert.equal(code, entry.code, `${reason}: code`);
    assert.equal(Number(status), statusOf(entry.code), `${reason}: status`);
  }
});
