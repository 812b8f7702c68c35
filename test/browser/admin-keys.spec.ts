/**
 * The API keys page as alice (admin): a key created is shown once (a copy
 * button, a warning) and works against the engine; after a reload it is not
 * shown anywhere; revoke and rotate, each asked first. Only the Console's
 * tenant's keys are listed and minted. Bob (a user) has no admin nav and the
 * Console refuses him the key routes. Axe and screenshots.
 */
import { expectAccessible } from "./accessibility.ts";
import { expect, loggedInPage, screenshot, test } from "./console-fixture.ts";

test("create a key: shown once, works; after a reload not shown; revoke it; rotate another", async ({
  browser,
  server,
}) => {
  // A key of another tenant, made over the engine's own API: not this Console's to show.
  await server.engine("POST", "keys", { name: "globex-backend", tenant: "globex" });
  const page = await loggedInPage(browser, server, "alice");
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
    origin: server.url,
  });

  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "API keys" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expectAccessible(page, "the API keys page");
  await expect(page.getByText("the keys of tenant default")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "globex-backend" })).toHaveCount(0);

  await page.getByLabel("Name", { exact: true }).fill("ci-backend");
  await page.getByRole("button", { name: "Create key" }).click();
  const secretBox = page.getByLabel("The key", { exact: true });
  await expect(secretBox).toHaveValue(/^tfk_[A-Za-z0-9_-]{43}$/);
  const secret = await secretBox.inputValue();
  await expect(page.getByText("It is shown this once")).toBeVisible();
  await page.getByRole("button", { name: "Copy the key" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Copied" })).toBeVisible();
  // A string: the test project has no DOM types.
  expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);
  await expectAccessible(page, "the API keys page with a new key");
  await screenshot(page, "admin-keys");

  // The key works against the engine at once, in the Console's tenant only.
  const used = await fetch(`${server.url}/v1/definitions`, { headers: { "x-api-key": secret } });
  expect(used.status).toBe(200);
  const elsewhere = await fetch(`${server.url}/v1/definitions`, {
    headers: { "x-api-key": secret, "x-tenant-id": "globex" },
  });
  expect(elsewhere.status).toBe(403);
  const row = page.getByRole("row").filter({ hasText: "ci-backend" });
  await expect(row).toContainText("live");
  await expect(row).toContainText("default");

  // After a reload the secret is nowhere in the page.
  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: "ci-backend" })).toBeVisible();
  await expect(page.getByLabel("The key", { exact: true })).toHaveCount(0);
  expect(await page.content()).not.toContain(secret.slice(4));

  // Revoke, asked first; cancelling keeps it.
  await page.getByRole("button", { name: "Revoke key ci-backend" }).click();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("row").filter({ hasText: "ci-backend" })).toContainText("live");
  await page.getByRole("button", { name: "Revoke key ci-backend" }).click();
  await page.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(page.getByRole("row").filter({ hasText: "ci-backend" })).toContainText("revoked");
  await expect(page.getByRole("button", { name: "Revoke key ci-backend" })).toHaveCount(0);
  // The node may answer from its 5 s cache for a moment; then the key is refused.
  await expect
    .poll(
      async () =>
        (await fetch(`${server.url}/v1/definitions`, { headers: { "x-api-key": secret } })).status,
      { timeout: 15_000, intervals: [1000] },
    )
    .toBe(401);

  // Rotate: a new secret once, scoped as the old one; the old one revoked.
  await page.getByLabel("Name", { exact: true }).fill("acme-backend");
  await page.getByRole("button", { name: "Create key" }).click();
  const first = await page.getByLabel("The key", { exact: true }).inputValue();
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByLabel("The key", { exact: true })).toHaveCount(0);
  await page.getByRole("button", { name: "Rotate key acme-backend" }).click();
  await page.getByRole("button", { name: "Yes, rotate" }).click();
  await expect(page.getByRole("heading", { name: /Rotated API key: acme-backend/ })).toBeVisible();
  const rotated = await page.getByLabel("The key", { exact: true }).inputValue();
  expect(rotated).toMatch(/^tfk_/);
  expect(rotated).not.toBe(first);
  const rows = page.getByRole("row").filter({ hasText: "acme-backend" });
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: "revoked" })).toHaveCount(1);
  await expect(rows.filter({ hasText: "live" })).toContainText("default");
  const scoped = await fetch(`${server.url}/v1/definitions`, {
    headers: { "x-api-key": rotated, "x-tenant-id": "default" },
  });
  expect(scoped.status).toBe(200);
  // No secret reached the server's log (the engine's or the Console's).
  expect(server.log()).toContain("API key rotated");
  for (const k of [secret, first, rotated]) expect(server.log()).not.toContain(k.slice(4));
  await page.context().close();
});

test("bob (a user) sees no admin nav, no admin page, and the Console refuses him the key routes", async ({
  browser,
  server,
}) => {
  const page = await loggedInPage(browser, server, "bob");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Definitions" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await page.goto(`${server.url}/console/keys`);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  await page.goto(`${server.url}/console/definitions`);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  const r = await page.request.get(`${server.url}/console/api/engine/keys`);
  expect(r.status()).toBe(403);
  await page.context().close();
});
