/** A user without the operator role has no operator pages, and the engine's run routes refuse them. */
import { expect, login, test } from "./console-fixture.ts";

test("bob (a plain user) gets no operator nav or page, and 403 from the runs route", async ({
  page,
  server,
}) => {
  await login(page, server, "bob");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Runs" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "Repairs" })).toHaveCount(0);

  for (const path of ["runs", "runs/some-run", "repairs"]) {
    await page.goto(`${server.url}/console/${path}`);
    await expect(page.getByRole("heading", { name: "Not found", level: 1 })).toBeVisible();
  }

  // The page's request context carries bob's cookies: the server, not the page, says no.
  for (const path of ["runs", "runs/some-run/history", "admin/cache/mutations"]) {
    const r = await page.request.get(`${server.url}/console/api/engine/${path}`);
    expect(r.status(), path).toBe(403);
  }
});

test("olga (an operator) gets the operator nav and a 200 from the runs route", async ({
  page,
  server,
}) => {
  await login(page, server, "olga");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Runs" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Repairs" })).toBeVisible();
  expect((await page.request.get(`${server.url}/console/api/engine/runs`)).status()).toBe(200);
});
