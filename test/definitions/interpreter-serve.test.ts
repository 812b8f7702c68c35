/**
 * `taskflow serve --workflows <module>`: the steps the module registers with
 * registerStep run the `call` states of a published definition started with
 * POST /v1/processes (a real server process on SQLite).
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "tf-interp-serve-"));
after(() => rmSync(dir, { recursive: true, force: true }));

void test("serve --workflows: registerStep in the module serves a definition's call", async () => {
  const steps = join(dir, "steps.mjs");
  const api = new URL("../../src/index.ts", import.meta.url).href;
  writeFileSync(
    steps,
    `import { registerStep } from ${JSON.stringify(api)};\n` +
      `registerStep("greet", (input) => ({ hello: input.name }));\n`,
  );
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL)$/.test(k),
    ),
  );
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/main.ts", "serve", "--workflows", steps],
    {
      cwd: root,
      env: {
        ...env,
        NODE_ENV: "development",
        ADDR: "127.0.0.1:0",
        LOG_LEVEL: "warn",
        DATABASE_URL: `sqlite:${join(dir, "serve.db")}`,
      },
    },
  );
  let stdout = "";
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      proc.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`exited: ${stderr}`)));
    });
    const post = async (path: string, body: object) => {
      const r = await fetch(base + path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-actor-id": "alice" },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    const published = await post("/v1/definitions/hello/publish", {
      key: "hello",
      name: "Hello",
      start: "greet",
      states: {
        greet: {
          type: "call",
          step: "greet",
          input: "{ 'name': vars.who }",
          resultVar: "g",
          next: "e",
        },
        e: { type: "end" },
      },
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    const started = await post("/v1/processes", { processKey: "hello", vars: { who: "ann" } });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    let run: any;
    for (let i = 0; i < 200; i++) {
      const r = await fetch(`${base}/v1/runs/${started.body.runId}`, {
        headers: { "x-actor-id": "alice" },
      });
      run = await r.json();
      if (run.status === "completed" || run.status === "failed") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(run.output, { vars: { who: "ann", g: { hello: "ann" } } });
  } finally {
    proc.kill("SIGTERM");
    await exited;
  }
});
