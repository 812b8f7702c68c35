/**
 * examples/employee-termination-app's backend over HTTP, with TaskFlow on its
 * private port and a real SQLite file: the whole termination through /api as
 * the five demo users, and the rules the pages rely on — the cookie's flags,
 * CSRF and origin on mutations, HR-only routes, and another company's task
 * refused by TaskFlow's tenant.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { TaskflowClient } from "taskflow/client";
import { buildBackend } from "../../examples/employee-termination-app/server/backend.ts";
import { startPrivateTaskflow } from "../../examples/employee-termination-app/server/private-taskflow.ts";
import {
  startApp,
  type RunningApp,
} from "../../examples/employee-termination-app/server/start-app.ts";

let app: RunningApp;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tf-termination-app-"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>pages</title>");
  app = await startApp({
    dataDir: dir,
    pagesDir: dir,
    port: 0,
    host: "127.0.0.1",
    taskflowPort: 0,
  });
});

after(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  body: Record<string, unknown> & { items?: Record<string, unknown>[] };
  setCookie: string | null;
}

/** A browser's view of the app: its cookie and CSRF token, and the Origin it sends. */
class Browser {
  cookie = "";
  csrf = "";
  constructor(readonly origin = app.url) {}

  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const r = await fetch(`${app.url}${path}`, {
      method,
      headers: {
        origin: this.origin,
        ...(this.cookie !== "" ? { cookie: this.cookie } : {}),
        ...(method !== "GET" ? { "x-csrf-token": this.csrf } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await r.text();
    const reply: Reply = {
      status: r.status,
      body: text === "" ? {} : (JSON.parse(text) as Reply["body"]),
      setCookie: r.headers.get("set-cookie"),
    };
    return reply;
  }

  async login(userId: string): Promise<Reply> {
    const r = await this.send("POST", "/api/login", { userId });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    this.cookie = r.setCookie!.split(";")[0]!;
    this.csrf = String(r.body.csrfToken);
    return r;
  }

  /** Polls the inbox until a task of `step` is there (the engine assigns in the background). */
  async taskOf(step: string): Promise<Record<string, unknown>> {
    for (const until = Date.now() + 10_000; Date.now() < until;) {
      const found = (await this.send("GET", "/api/tasks")).body.items?.find((t) => t.step === step);
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no ${step} task`);
  }
}

const as = async (userId: string) => {
  const b = new Browser();
  await b.login(userId);
  return b;
};

test("the session cookie is opaque, HttpOnly and SameSite=Lax; the page gets a CSRF token", async () => {
  const r = await new Browser().login("it-ivan");
  assert.match(
    r.setCookie!,
    /^et_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
  );
  assert.doesNotMatch(r.setCookie!, /it-ivan/);
  assert.equal(typeof r.body.csrfToken, "string");
});

test("a termination: HR starts it, three teams complete in parallel, HR closes it", async () => {
  const [hana, ivan, fiona, mike] = await Promise.all(
    ["hr-hana", "it-ivan", "fin-fiona", "mgr-mike"].map(as),
  );
  const started = await hana!.send("POST", "/api/terminations", {
    employee: "Emma Stone",
    lastDay: "2030-06-30",
    manager: "mgr-mike",
    reason: "resignation",
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));

  // All three at once: each is in its inbox before any is done.
  const it = await ivan!.taskOf("it");
  const finance = await fiona!.taskOf("finance");
  const handover = await mike!.taskOf("handover");
  assert.match(String(it.title), /Emma Stone/);
  assert.equal(
    (await hana!.send("GET", "/api/tasks")).body.items?.length,
    0,
    "no closing task yet",
  );

  // The form is TaskFlow's: a completion without the required field is refused.
  const bad = await fiona!.send("POST", `/api/tasks/${String(finance.id)}/complete`, { vars: {} });
  assert.equal(bad.status, 400);
  for (const [who, task, vars] of [
    [ivan!, it, { accountsRevoked: true, equipmentReturned: ["laptop"] }],
    [fiona!, finance, { finalPay: 4180.5 }],
    [mike!, handover, { successor: "dave" }],
  ] as const) {
    const r = await who.send("POST", `/api/tasks/${String(task.id)}/complete`, { vars });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }

  const close = await hana!.taskOf("close");
  const inProgress = (await hana!.send("GET", "/api/terminations")).body.items!;
  assert.deepEqual(
    inProgress.map((t) => [t.employee, t.status]),
    [["Emma Stone", "in progress"]],
  );
  const closed = await hana!.send("POST", `/api/tasks/${String(close.id)}/complete`, {
    vars: { action: "close" },
  });
  assert.equal(closed.status, 200, JSON.stringify(closed.body));
  for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const items = (await hana!.send("GET", "/api/terminations")).body.items!;
    if (items[0]?.status === "closed") break;
    assert.ok(Date.now() < until, `still ${JSON.stringify(items)}`);
  }
});

test("another company sees nothing: the globex clerk's tenant has no acme task", async () => {
  const [hana, ivan, gus] = await Promise.all(["hr-hana", "it-ivan", "clerk-gus"].map(as));
  await hana!.send("POST", "/api/terminations", {
    employee: "Otto",
    lastDay: "2030-07-01",
    manager: "mgr-mike",
  });
  const task = await ivan!.taskOf("it");
  // Gus is in the hr group too, so only the tenant keeps acme out of his lists.
  assert.deepEqual((await gus!.send("GET", "/api/tasks")).body.items, []);
  assert.deepEqual((await gus!.send("GET", "/api/terminations")).body.items, []);
  const read = await gus!.send("GET", `/api/tasks/${String(task.id)}`);
  assert.equal(read.status, 404);
  assert.equal(read.body.error, "NotFound");
  const act = await gus!.send("POST", `/api/tasks/${String(task.id)}/complete`, { vars: {} });
  assert.equal(act.status, 404);
  // Gus cannot name a manager of acme either.
  const start = await gus!.send("POST", "/api/terminations", {
    employee: "x",
    lastDay: "2030-01-01",
    manager: "mgr-mike",
  });
  assert.equal(start.status, 400);
  // Whereas within acme the same id is found, by someone it concerns.
  assert.equal((await ivan!.send("GET", `/api/tasks/${String(task.id)}`)).status, 200);
});

test("mutations need the session's CSRF token and this app's origin", async () => {
  const hana = await as("hr-hana");
  const body = { employee: "Eve", lastDay: "2030-01-01", manager: "mgr-mike" };
  const noToken = await hana.send("POST", "/api/terminations", body, { "x-csrf-token": "" });
  assert.equal(noToken.status, 403);
  const otherToken = await hana.send("POST", "/api/terminations", body, {
    "x-csrf-token": (await as("it-ivan")).csrf,
  });
  assert.equal(otherToken.status, 403);
  const crossSite = new Browser("https://evil.example");
  crossSite.cookie = hana.cookie;
  crossSite.csrf = hana.csrf;
  assert.equal((await crossSite.send("POST", "/api/terminations", body)).status, 403);
  assert.equal(
    (await hana.send("POST", "/api/terminations", body, { "sec-fetch-site": "cross-site" })).status,
    403,
  );
  assert.equal((await hana.send("POST", "/api/terminations", body)).status, 201);
});

test("only HR starts terminations; without a session there is nothing", async () => {
  const ivan = await as("it-ivan");
  const r = await ivan.send("POST", "/api/terminations", {
    employee: "x",
    lastDay: "2030-01-01",
    manager: "mgr-mike",
  });
  assert.equal(r.status, 403);
  assert.equal((await ivan.send("GET", "/api/terminations")).status, 403);
  assert.equal((await new Browser().send("GET", "/api/tasks")).status, 401);
  assert.equal((await new Browser().send("GET", "/api/session")).status, 401);
});

test("logging out ends the session on the server", async () => {
  const ivan = await as("it-ivan");
  assert.equal((await ivan.send("POST", "/api/logout")).status, 204);
  assert.equal((await ivan.send("GET", "/api/tasks")).status, 401);
});

test("a key TaskFlow refuses is the backend's fault: 503, not the user's 401", async () => {
  const engine = await startPrivateTaskflow({ databaseFile: join(dir, "other.db"), port: 0 });
  const wrongKey = new TaskflowClient({ baseUrl: engine.url, apiKey: "x".repeat(32) });
  const backend = await buildBackend({ taskflow: wrongKey, pagesDir: dir, secureCookies: true });
  try {
    const login = await backend.inject({
      method: "POST",
      url: "/api/login",
      headers: { origin: "http://localhost", host: "localhost" },
      payload: { userId: "it-ivan" },
    });
    const cookie = String(login.headers["set-cookie"]);
    assert.match(cookie, /; Secure$/);
    const r = await backend.inject({
      method: "GET",
      url: "/api/tasks",
      headers: { cookie: cookie.split(";")[0]! },
    });
    assert.equal(r.statusCode, 503);
    assert.deepEqual(r.json(), { error: "Unavailable" });
  } finally {
    await backend.close();
    await engine.close();
  }
});
