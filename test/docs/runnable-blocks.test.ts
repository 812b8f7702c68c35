/**
 * Every code block of README.md and docs/*.md marked runnable (the convention:
 * test/docs/support/runnable-blocks.ts) runs as written, one session per file:
 * its TypeScript files written, its shell blocks run by bash against a real
 * `taskflow serve` (from the sources, development mode, SQLite in the
 * session's directory, a free port). A session passes when every block exits
 * 0 (any curl answered 4xx/5xx fails it), no run it started ends `failed`, and
 * the server logged no warning or error.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { get } from "node:http";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../support/server-process.ts";
import { runnableBlocks, type RunnableBlock } from "./support/runnable-blocks.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);

const PRELUDE = `set -euo pipefail
curl() { command curl --fail-with-body "$@"; }
# One server at a time, as a reader has on :8081: the one running (the session's own,
# a process group it started) is stopped first.
stop_servers() {
  [ -f "$DIR/server.pids" ] || return 0
  local pids
  pids=$(cat "$DIR/server.pids")
  : >"$DIR/server.pids"
  for pid in $pids; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  # Gone, not only deaf: a server draining its requests still holds the port.
  for pid in $pids; do
    for _ in $(seq 300); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done
  done
}
# A server in its own process group (stopped as one), ready before the next line runs.
serve_in_background() {
  stop_servers
  setsid "$@" </dev/null >>"$DIR/server.log" 2>&1 &
  echo $! >>"$DIR/server.pids"
  for _ in $(seq 300); do
    command curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && return 0
    sleep 0.1
  done
  echo "the server did not become ready" >&2
  return 1
}
`;

/** The block's shell text as the session runs it (see runnable-blocks.ts). */
function shellOf(text: string, port: number): string {
  return text
    .replaceAll("localhost:8081", `127.0.0.1:${port}`)
    .replaceAll("npm run taskflow --", "taskflow_cli")
    .split("\n")
    .map((l) => l.replace(/^((?:[A-Z_]+=\S*\s+)*)taskflow serve\b/, "$1taskflow_cli serve"))
    .map((l) =>
      l.replace(
        /^((?:[A-Z_]+=\S*\s+)*)taskflow_cli serve\b/,
        "$1serve_in_background taskflow_cli serve",
      ),
    )
    .join("\n");
}

/** A block's file; in TypeScript `from "taskflow"` is this checkout's sources. */
function fileOf(block: RunnableBlock): { name: string; text: string } {
  if (block.lang === "data") return { name: block.file!, text: block.text };
  const first = /^\/\/ ([\w.-]+\.ts)\s*$/.exec(block.text.split("\n")[0] ?? "");
  const name = block.file ?? first?.[1];
  assert.ok(name, `${block.where}: a runnable ts block starts with // <file>.ts`);
  const text = block.text
    .replaceAll(`from "taskflow"`, `from ${JSON.stringify(join(ROOT, "src/index.ts"))}`)
    .replaceAll(
      `from "taskflow/client"`,
      `from ${JSON.stringify(join(ROOT, "src/client/index.ts"))}`,
    );
  return { name, text };
}

interface Session {
  dir: string;
  port: number;
  env: Record<string, string>;
}

function runShell(s: Session, block: RunnableBlock, text: string, n: number): void {
  const file = join(s.dir, `block-${n}.sh`);
  writeFileSync(file, `source ${JSON.stringify(join(s.dir, "prelude.sh"))}\n${text}`);
  const r = spawnSync("bash", [file], {
    cwd: s.dir,
    env: s.env,
    encoding: "utf8",
    timeout: 90_000,
  });
  assert.equal(
    r.status,
    0,
    `${block.where} failed (exit ${r.status}${r.signal ? `, ${r.signal}` : ""}):\n` +
      `${r.stdout}\n${r.stderr}\n--- server log ---\n${serverLog(s).slice(-4_000)}`,
  );
}

const serverLog = (s: Session) => {
  try {
    return readFileSync(join(s.dir, "server.log"), "utf8");
  } catch {
    return "";
  }
};

/** The servers the blocks started (process groups of their own), by their ids. */
async function stopServers(s: Session): Promise<void> {
  let text: string;
  try {
    text = readFileSync(join(s.dir, "server.pids"), "utf8");
  } catch {
    return;
  }
  const pids = text.split("\n").filter(Boolean).map(Number);
  const alive = (pid: number) => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const pid of pids.filter(alive)) process.kill(-pid, "SIGTERM");
  // Gone before their directory is: a server shutting down still writes its SQLite file.
  for (let i = 0; i < 200 && pids.some(alive); i++) await sleep(50);
}

/** A fresh connection each time: a pooled one may be the stopped server's. */
function runsWith(s: Session, status: string): Promise<{ id: string; error: unknown }[]> {
  const url = `http://127.0.0.1:${s.port}/v1/runs?status=${status}&limit=500`;
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        if (res.statusCode !== 200)
          return reject(new Error(`GET ${url}: ${res.statusCode} ${body}`));
        resolve((JSON.parse(body) as { items: { id: string; error: unknown }[] }).items);
      });
    }).on("error", reject);
  });
}

/** Until no run is pending or running (up to 15 s): each waits, or has ended. */
async function settled(s: Session): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const busy = [...(await runsWith(s, "pending")), ...(await runsWith(s, "running"))];
    if (busy.length === 0) return;
    await sleep(100);
  }
}

/** Once the runs settled, none may have failed. */
async function assertNoRunFailed(s: Session): Promise<void> {
  await settled(s);
  assert.deepEqual(await runsWith(s, "failed"), [], "a run the blocks started failed");
}

function assertQuietLog(s: Session): void {
  const loud = serverLog(s)
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .filter((l) => (JSON.parse(l) as { level?: number }).level! >= 40);
  assert.deepEqual(loud, [], "the server logged warnings or errors");
}

for (const doc of DOCS) {
  const blocks = runnableBlocks(join(ROOT, doc), doc);
  if (blocks.length === 0) continue;
  void test(`${doc}: its ${blocks.length} runnable blocks run as written`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "taskflow-docs-"));
    const port = await freePort();
    const s: Session = {
      dir,
      port,
      // Only what the blocks need: none of the test run's own settings leak in.
      env: {
        PATH: `${join(dir, "bin")}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
        HOME: process.env["HOME"] ?? dir,
        ROOT,
        DIR: dir,
        PORT: String(port),
        ADDR: `127.0.0.1:${port}`,
        DATABASE_URL: `sqlite:${join(dir, "taskflow.db")}`,
      },
    };
    writeFileSync(join(dir, "prelude.sh"), PRELUDE);
    // `npm run taskflow --` is `tsx src/cli/main.ts` (package.json), and so is the
    // package's `taskflow` binary run from the sources; commands, so setsid runs them.
    mkdirSync(join(dir, "bin"));
    const cli = `#!/bin/sh\nexec "$ROOT/node_modules/.bin/tsx" "$ROOT/src/cli/main.ts" "$@"\n`;
    writeFileSync(join(dir, "bin", "taskflow_cli"), cli, { mode: 0o755 });
    writeFileSync(join(dir, "bin", "taskflow"), cli, { mode: 0o755 }); // the package's binary
    let served = false;
    try {
      for (const [n, block] of blocks.entries()) {
        if (block.lang !== "sh") {
          const { name, text } = fileOf(block);
          writeFileSync(join(dir, name), text);
          continue;
        }
        let text = shellOf(block.text, port);
        if (block.server && !served) {
          text = `NODE_ENV=development serve_in_background taskflow_cli serve\n${text}`;
        }
        served ||= text.includes("serve_in_background");
        runShell(s, block, text, n);
        // A reader reads on before the next block: the runs it started get to where they wait.
        if (served) await settled(s);
      }
      if (served) {
        await assertNoRunFailed(s);
        assertQuietLog(s);
      }
    } catch (e) {
      if (e instanceof Error && !e.message.includes("--- server log ---")) {
        e.message += `\n--- server log ---\n${serverLog(s).slice(-4_000)}`;
      }
      throw e;
    } finally {
      await stopServers(s);
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
