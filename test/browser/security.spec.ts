/**
 * The browser-side security rules, in a real browser: the API key appears in nothing the
 * browser receives, a cross-site request and a request without the CSRF token change
 * nothing, and a rotated refresh token presented again ends the whole login.
 */
import { createServer, type Server } from "node:http";
import { API_KEY, expect, login, test } from "./console-fixture.ts";

test("the API key is in no page, bundle, answer or header the browser receives", async ({
  page,
  server,
}) => {
  const seen: string[] = [];
  page.on("response", (r) => {
    void (async () => {
      const headers = JSON.stringify(await r.allHeaders());
      let body = "";
      try {
        body = (await r.body()).toString("utf8");
      } catch {
        /* an event stream or a redirect has no body to read */
      }
      seen.push(`${r.url()} ${headers} ${body}`);
    })();
  });
  await server.engine("POST", "definitions/sec-flow/publish", {
    key: "sec-flow",
    name: "Security flow",
    start: "review",
    states: {
      review: { type: "userTask", title: "Review", assignee: { users: ["alice"] }, next: "done" },
      done: { type: "end" },
    },
  });
  await server.engine("POST", "processes", { processKey: "sec-flow" });
  await login(page, server, "alice");
  // Every page in the nav, as the admin sees them all.
  const links = await page.getByRole("navigation", { name: "Main" }).getByRole("link").all();
  const hrefs = await Promise.all(links.map((l) => l.getAttribute("href")));
  for (const href of hrefs) {
    if (href === null) continue;
    await page.goto(`${server.url}${href}`);
    await page.waitForLoadState("networkidle");
  }
  // The bundle itself, whatever the pages loaded.
  const html = await (await page.request.get(`${server.url}/console/`)).text();
  for (const m of html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
    const asset = await page.request.get(`${server.url}${m[1]}`);
    seen.push(`${m[1]} ${await asset.text()}`);
  }
  await expect.poll(() => seen.length).toBeGreaterThan(hrefs.length);
  expect(seen.filter((s) => s.includes(API_KEY)).map((s) => s.slice(0, 120))).toEqual([]);
  expect(server.log()).not.toContain(API_KEY);
});

test("a request without the CSRF token, and one from another site, change nothing", async ({
  page,
  server,
}) => {
  await server.engine("POST", "definitions/csrf-flow/publish", {
    key: "csrf-flow",
    name: "CSRF flow",
    start: "done",
    states: { done: { type: "end" } },
  });
  await login(page, server, "bob");
  const count = async () =>
    (await server.engine<{ items: unknown[] }>("GET", "processes?user=bob", undefined, "bob")).items
      .length;
  const before = await count();

  // Same origin, no token: the page's own fetch without X-CSRF-Token.
  const noToken = await page.evaluate(async () => {
    const r = await fetch("/console/api/engine/processes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ processKey: "csrf-flow" }),
    });
    return r.status;
  });
  expect(noToken).toBe(403);

  // Another site (another port is another origin): a form that posts to the Console with
  // the victim's cookies (SameSite=Lax sends them on a same-site top-level POST).
  const evil: Server = createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(
      `<form id="f" method="POST" action="${server.url}/console/api/engine/processes" ` +
        `enctype="text/plain"><input name='{"processKey":"csrf-flow","x":"' value='"}'></form>` +
        `<script>document.getElementById("f").submit()</script>`,
    );
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
  const address = evil.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  try {
    const answer = page.waitForResponse((r) => r.url().endsWith("/console/api/engine/processes"));
    await page.goto(`http://127.0.0.1:${port}/`);
    expect((await answer).status()).toBe(403);
  } finally {
    evil.close();
  }
  expect(await count()).toBe(before);
});

test("a rotated refresh token presented again revokes the whole login", async ({
  page,
  server,
}) => {
  await login(page, server, "carol");
  const context = page.context();
  const cookie = async (name: string) =>
    (await context.cookies()).find((c) => c.name === name)?.value ?? "";
  const stolen = await cookie("tf_refresh");
  const csrf = await cookie("tf_csrf");

  // The page refreshes: the refresh token rotates and the login goes on.
  const refreshed = await page.request.post(`${server.url}/console/api/auth/refresh`, {
    headers: { "x-csrf-token": csrf, origin: server.url },
  });
  expect(refreshed.status()).toBe(200);
  expect(await cookie("tf_refresh")).not.toBe(stolen);
  expect((await page.request.get(`${server.url}/console/api/session`)).status()).toBe(200);

  // Someone presents the old one (a stolen copy): refused, and the family is revoked.
  const thief = await page.context().browser()!.newContext();
  try {
    await thief.addCookies([
      { name: "tf_refresh", value: stolen, url: `${server.url}/console` },
      { name: "tf_csrf", value: csrf, url: `${server.url}/console` },
    ]);
    const replay = await thief.request.post(`${server.url}/console/api/auth/refresh`, {
      headers: { "x-csrf-token": csrf, origin: server.url },
    });
    expect(replay.status()).toBe(401);
  } finally {
    await thief.close();
  }
  // The legitimate page's newest session ends with it.
  expect((await page.request.get(`${server.url}/console/api/session`)).status()).toBe(401);
  await page.reload();
  await expect(page.getByLabel("User id", { exact: true })).toBeVisible();
});
