/**
 * `taskflow console` (serve --console) as a real process on SQLite, over real HTTP: the
 * development code comes from the server's log (stdout), the login's cookies
 * go back as a browser would send them, and an inbox read goes through the
 * Console to the engine on the server's own loopback address.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../support/backends.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const KEY = "serve-console-key-0123456789abcdef";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const settingsFree = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL|TASKFLOW_CONFIG|REDIS_.*)$/.test(k),
    ),
  );

void test("taskflow console: log in by the logged code, then read the inbox through the Console", async () => {
  const database = await createTestDatabase({ name: "sqlite" });
  after(() => database.drop());
  const port = await freePort();
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "console"], {
    cwd: root,
    env: {
      ...settingsFree(),
      NODE_ENV: "development",
      ADDR: `127.0.0.1:${port}`,
      DATABASE_URL: database.url,
      WF_API_KEYS: KEY,
      WF_USERS: "alice,bob",
      WF_COORDINATION: "sql",
    },
  });
  let stdout = "";
  proc.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise((resolve) => proc.on("exit", resolve));
  try {
    await waitFor(
      () => stdout.includes("Console API on"),
      60_000,
      () => stdout + stderr,
    );
    const base = `http://127.0.0.1:${port}/console/api`;
    const origin = `http://127.0.0.1:${port}`;
    const json = { "content-type": "application/json", origin };
    const asked = await fetch(`${base}/auth/code`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ userId: "bob" }),
    });
    assert.equal(asked.status, 202);
    await waitFor(
      () => /"loginCode":"\d{6}"/.test(stdout),
      5000,
      () => stdout,
    );
    const code = /"userId":"bob"[^\n]*"loginCode":"(\d{6})"/.exec(stdout)?.[1];
    assert.ok(code, "the code is in the development log with the user id");
    const attempt = asked.headers
      .getSetCookie()
      .map((l) => l.split(";")[0])
      .join("; ");
    const verified = await fetch(`${base}/auth/verify`, {
      method: "POST",
      headers: { ...json, cookie: attempt },
      body: JSON.stringify({ userId: "bob", code }),
    });
    assert.equal(verified.status, 200, await verified.clone().text());
    const cookie = verified.headers
      .getSetCookie()
      .map((l) => l.split(";")[0])
      .join("; ");
    assert.match(cookie, /tf_session=.+; tf_refresh=.+; tf_csrf=.+/);
    const inbox = await fetch(`${base}/engine/tasks`, { headers: { cookie } });
    const text = await inbox.text();
    assert.equal(inbox.status, 200, text);
    assert.deepEqual(JSON.parse(text), { items: [], nextCursor: null });
    assert.ok(!text.includes(KEY) && ![...inbox.headers.values()].some((v) => v.includes(KEY)));
    assert.ok(!stdout.includes(KEY) && !stderr.includes(KEY), "the key is not in the log");
  } finally {
    proc.kill("SIGTERM");
    await exited;
  }
});

async function waitFor(ok: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out; output so far:\n${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
