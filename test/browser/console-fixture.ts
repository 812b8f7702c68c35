/**
 * A TaskFlow server with the Console for one test file: its own SQLite file, a static
 * directory of users and groups, the engine's key known only to the test (to arrange
 * data through /v1, as a product's backend would), and the server's log read for the
 * one-time login codes that development mode writes there.
 */
import { test as base, expect, type Browser, type Page } from "@playwright/test";
import { mkdtempSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtCli } from "../support/built-cli.ts";
import { startNode } from "./tsx-process.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const API_KEY = "browser-tests-engine-key-0123456789abcdef";
export const SCREENSHOTS = join(ROOT, "test-results", "screenshots");

/** alice: admin; olga: operator; bob, carol, dave: users; bob and carol are clerks. */
export const DIRECTORY = {
  WF_USERS: "alice,olga,bob,carol,dave,erin,frank",
  WF_GROUP_admins: "alice",
  WF_GROUP_ops: "olga,alice",
  WF_GROUP_clerks: "bob,carol",
  WF_GROUP_it: "bob",
  WF_GROUP_finance: "carol",
  WF_GROUP_managers: "dave",
  WF_GROUP_hr: "erin",
  WF_CONSOLE_OPERATOR_GROUPS: "ops",
  WF_CONSOLE_ADMIN_GROUPS: "admins",
};

export interface ConsoleServer {
  url: string;
  /** Calls the engine's REST API (/v1/...) with the key, as `actor`. */
  engine<T = unknown>(method: string, path: string, body?: unknown, actor?: string): Promise<T>;
  /** The latest login code the server logged for `userId`. */
  codeFor(userId: string): Promise<string>;
  log(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export async function startConsoleServer(
  extraEnv: Record<string, string> = {},
  args: string[] = [],
): Promise<ConsoleServer & { stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "tf-browser-"));
  // A test that must know the address first (an OpenID Connect callback) passes ADDR.
  const port =
    extraEnv.ADDR === undefined ? await freePort() : Number(extraEnv.ADDR.split(":").pop());
  // The built CLI, as `npm start` runs it (test/support/built-cli.ts): under tsx each
  // server start compiled the whole source tree first.
  const proc = startNode(
    builtCli(["serve", "--console", ...args]),
    {
      // The outer shell's settings stay out: the test decides every one.
      ...Object.fromEntries(
        Object.entries(process.env).filter(
          ([k]) =>
            !/^(ADDR|DATABASE_URL|WF_.*|NODE_ENV|LOG_LEVEL|TASKFLOW_CONFIG|REDIS_.*)$/.test(k),
        ),
      ),
      NODE_ENV: "development",
      DATABASE_URL: `sqlite:${join(dir, "taskflow.db")}`,
      ADDR: `127.0.0.1:${port}`,
      WF_API_KEYS: API_KEY,
      LOG_LEVEL: "info",
      // login() logs each page in from an address of its own (X-Forwarded-For, read only
      // from this trusted peer): a worker's server serves every spec of that worker, and
      // its logins from one address would meet the login budget (20 codes per address
      // per 15 minutes) once a run is fast enough. The budgets are tested in
      // test/console/console-login-limits.test.ts, not here.
      WF_CONSOLE_TRUSTED_PROXIES: "127.0.0.1",
      ...DIRECTORY,
      ...extraEnv,
    },
    dir,
  );
  const log = proc.log;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode() !== null) throw new Error(`server exited ${proc.exitCode()}: ${log()}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${log()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const engine = async <T>(method: string, path: string, body?: unknown, actor = "alice") => {
    const r = await fetch(`${url}/v1/${path.replace(/^\//, "")}`, {
      method,
      headers: {
        "x-api-key": API_KEY,
        "x-actor-id": actor,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return (text === "" ? undefined : JSON.parse(text)) as T;
  };
  const codeFor = async (userId: string) => {
    for (let i = 0; i < 100; i++) {
      const codes = [...log().matchAll(/\{[^\n]*"loginCode"[^\n]*\}/g)]
        .map((m) => JSON.parse(m[0]) as { userId: string; loginCode: string })
        .filter((e) => e.userId === userId);
      const last = codes.at(-1);
      if (last !== undefined) return last.loginCode;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no login code for ${userId} in the server log`);
  };
  return {
    url,
    engine,
    codeFor,
    log,
    stop: proc.stop,
  };
}

let clients = 0;
/** A documentation address (TEST-NET-1, RFC 5737) per login; 254 before one repeats. */
const nextClientAddress = () => {
  clients += 1;
  return `192.0.2.${1 + (clients % 254)}`;
};

/** Logs `userId` in through the login page (code asked, read from the log, typed in). */
export async function login(page: Page, server: ConsoleServer, userId: string): Promise<void> {
  const before = server.log().length;
  await page.setExtraHTTPHeaders({ "x-forwarded-for": nextClientAddress() });
  await page.goto(`${server.url}/console/`);
  await page.getByLabel("User id", { exact: true }).fill(userId);
  await page.getByRole("button", { name: "Send me a code" }).click();
  await expect(page.getByLabel("Code", { exact: true })).toBeVisible();
  // The code asked just now: wait for a log line after `before`.
  await expect.poll(() => server.log().slice(before).includes('"loginCode"')).toBe(true);
  await page.getByLabel("Code", { exact: true }).fill(await server.codeFor(userId));
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("button", { name: "Log out" })).toBeVisible();
}

/** A new browser context (its own cookies) logged in as `userId`. */
export async function loggedInPage(
  browser: Browser,
  server: ConsoleServer,
  userId: string,
): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await login(page, server, userId);
  return page;
}

/** Saves a full-page screenshot under test-results/screenshots (the README shows the best). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** One server per test file (worker-scoped); tests in a file share it and arrange their own data. */
export const test = base.extend<object, { server: ConsoleServer }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const s = await startConsoleServer();
      await use(s);
      await s.stop();
    },
    { scope: "worker" },
  ],
});

/** A `test` whose worker-scoped server starts with these settings and `serve` arguments. */
export function testWithServer(
  env: Record<string, string>,
  args: string[] = [],
  cleanup = () => {},
) {
  return base.extend<object, { server: ConsoleServer }>({
    server: [
      // eslint-disable-next-line no-empty-pattern
      async ({}, use) => {
        const s = await startConsoleServer(env, args);
        await use(s);
        await s.stop();
        cleanup();
      },
      { scope: "worker" },
    ],
  });
}

export { expect };
