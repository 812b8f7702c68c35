/**
 * A definition that calls a code step or a sub-process workflow that no
 * worker serves is refused at validate and publish with a 400 naming it,
 * unless the publish says allowUnknownSteps=true (ahead of the deploy of its
 * code). Known means registered on the node, or recorded by a worker within
 * the TTL (served_steps, served_workflows): an API-only node and the CLI know
 * what the workers do. SQLite, the real composition (createTaskflow).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { runCli } from "../../src/cli/run-cli.ts";
import { registerStep } from "../../src/engine/definitions/interpreter/step-registry.ts";
import { SERVED_TTL_MS } from "../../src/engine/durable/served-workflows.ts";
import { ServedCodeNames } from "../../src/engine/durable/served-code-names.ts";
import { workflow } from "../../src/workflow.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "unknown-key-0123456789abcdefghij";
const receipt = workflow("uc-receipt", async (ctx) => ctx.step("mail", () => "mailed"));

const calling = (key: string, step: string, sub = "uc-receipt") => ({
  key,
  name: "Calls",
  start: "charge",
  states: {
    charge: { type: "call", step, next: "notify" },
    notify: { type: "subProcess", workflow: sub, next: "done" },
    done: { type: "end" },
  },
});

interface Invalid {
  code: string;
  errors: { pointer: string; reason: string }[];
}

const sqlite = deployments.find((d) => d.name === "sqlite")!;

void describe("unknown code steps and workflows", () => {
  let deployment: Deployment;
  before(async () => {
    registerStep("uc-charge", () => ({ ok: true }));
    deployment = await sqlite.start(
      { apiKeys: [KEY], logLevel: "silent" },
      { workflows: [receipt], worker: { pollMs: 20, heartbeatMs: 300 } },
    );
  });
  after(() => deployment?.close());

  const call = (url: string, payload: unknown) =>
    deployment.inject({
      method: "POST",
      url,
      headers: { "x-api-key": KEY, "x-actor-id": "alice" },
      payload: payload as object,
    });

  test("validate: a known step and workflow pass; unknown ones are findings naming them", async () => {
    const ok = await call("/v1/definitions/validate", calling("uc-ok", "uc-charge"));
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { valid: true, notChecked: ["definitions"] });
    const bad = await call("/v1/definitions/validate", calling("uc-bad", "uc-nope", "uc-gone"));
    assert.equal(bad.statusCode, 400, bad.body);
    const p = bad.json<Invalid>();
    assert.equal(p.code, "Validation");
    assert.deepEqual(
      p.errors.map((e) => e.pointer),
      ["/states/charge/step", "/states/notify/workflow"],
    );
    assert.match(p.errors[0]!.reason, /no known code step: 'uc-nope'.*allowUnknownSteps=true/);
    assert.match(p.errors[1]!.reason, /no known workflow: 'uc-gone'/);
  });

  test("publish: refused with a 400 naming the step; allowUnknownSteps=true publishes", async () => {
    const refused = await call("/v1/definitions/uc-ahead/publish", calling("uc-ahead", "uc-later"));
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.json<Invalid>().errors[0]!.reason, /'uc-later'/);
    const ahead = await call(
      "/v1/definitions/uc-ahead/publish?allowUnknownSteps=true",
      calling("uc-ahead", "uc-later"),
    );
    assert.equal(ahead.statusCode, 201, ahead.body);
    const known = await call("/v1/definitions/uc-now/publish", calling("uc-now", "uc-charge"));
    assert.equal(known.statusCode, 201, known.body);
    const typo = await call(
      "/v1/definitions/uc-ahead/publish?allowUnknownSteps=yes",
      calling("uc-ahead", "uc-later"),
    );
    assert.equal(typo.statusCode, 400, typo.body);
  });
});

void describe("steps and workflows served by a worker elsewhere", () => {
  const dir = mkdtempSync(join(tmpdir(), "taskflow-unknown-code-"));
  const url = `sqlite:${join(dir, "code.db")}`;
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("count within the TTL, in the store and for the CLI's publish", async () => {
    const database = openDatabase(url);
    await database.migrate();
    const now = Date.now();
    try {
      await database.runs.recordServed({
        node: "far:1:a",
        workflows: ["far-flow"],
        steps: ["far-step"],
        now,
        forgetBefore: now - SERVED_TTL_MS,
      });
      await database.runs.recordServed({
        node: "old:1:a",
        workflows: [],
        steps: ["old-step"],
        now: now - SERVED_TTL_MS - 1,
        forgetBefore: 0,
      });
      const names = new ServedCodeNames(database.runs, () => []);
      assert.deepEqual(
        [...(await names.known("steps", ["far-step", "old-step", "far-flow"]))],
        ["far-step"],
      );
      assert.deepEqual(
        [...(await names.known("workflows", ["far-flow", "far-step"]))],
        ["far-flow"],
      );
    } finally {
      await database.close();
    }
    const cli = async (...args: string[]) => {
      let out = "";
      let err = "";
      const code = await runCli(
        ["definitions", ...args],
        { DATABASE_URL: url },
        {
          out: (t) => void (out += t),
          err: (t) => void (err += t),
        },
      );
      return { code, out, err };
    };
    const file = (name: string, doc: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(doc));
      return path;
    };
    const far = await cli("publish", file("far.json", calling("cli-far", "far-step", "far-flow")));
    assert.equal(far.code, 0, far.err);
    const old = file("old.json", calling("cli-old", "old-step", "far-flow"));
    const refused = await cli("publish", old);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /\/states\/charge\/step: names no known code step: 'old-step'/);
    const allowed = await cli("publish", old, "--allow-unknown-steps");
    assert.equal(allowed.code, 0, allowed.err);
    assert.equal(allowed.out, "published cli-old version 1\n");
  });
});
