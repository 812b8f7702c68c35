/**
 * The inbox: a long list is read page by page as it scrolls and only the rows in view
 * are in the DOM; a task assigned while the page is open appears without a reload.
 */
import { expectAccessible } from "./accessibility.ts";
import { expect, screenshot, test } from "./console-fixture.ts";
import { pageOf } from "./people-pages.ts";

const TASKS = 230;

test("a long inbox is virtualised and read page by page as it scrolls", async ({
  browser,
  server,
}) => {
  // A plain process gives the assignments a definition; its tasks go straight to frank.
  const p = await server.engine<{ instanceId: string }>(
    "POST",
    "processes",
    { processKey: "chores" },
    "alice",
  );
  for (let i = 0; i < TASKS; i++) {
    await server.engine("POST", "assignments", {
      parentInstanceId: p.instanceId,
      assignee: { kind: "user", id: "frank" },
      vars: { n: i },
    });
  }
  const page = await pageOf(browser, server, "frank");
  await page.getByRole("link", { name: "Inbox", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Inbox", exact: true })).toBeVisible();
  await expect(page.getByText("100 tasks, more as you scroll")).toBeVisible();
  const rows = page.locator("tr.task-row");
  await expect(rows.first()).toBeVisible();
  // Virtualised: far fewer rows in the DOM than loaded.
  expect(await rows.count()).toBeLessThan(60);
  await expectAccessible(page, "the inbox");
  await screenshot(page, "people-inbox");

  const region = page.getByRole("region", { name: "My inbox" });
  for (const shown of ["200 tasks, more as you scroll", `${TASKS} tasks`]) {
    await region.hover();
    await page.mouse.wheel(0, 1_000_000);
    await expect(page.getByText(shown, { exact: true })).toBeVisible();
  }
  await region.hover();
  await page.mouse.wheel(0, 1_000_000);
  await expect(rows.last()).toHaveAttribute("aria-rowindex", String(TASKS + 1));
  expect(await rows.count()).toBeLessThan(60);
});

test("a task assigned while the inbox is open appears without a reload", async ({
  browser,
  server,
}) => {
  const p = await server.engine<{ instanceId: string }>(
    "POST",
    "processes",
    { processKey: "onboarding" },
    "alice",
  );
  const page = await pageOf(browser, server, "erin");
  await page.goto(`${server.url}/console/inbox`);
  await expect(page.getByText("No tasks in this list.")).toBeVisible();
  const marker = await page.evaluate(() => {
    const w = globalThis as unknown as { notReloaded: boolean };
    w.notReloaded = true;
    return w.notReloaded;
  });
  expect(marker).toBe(true);

  await server.engine("POST", "assignments", {
    parentInstanceId: p.instanceId,
    assignee: { kind: "group", id: "hr" },
  });
  await expect(page.getByRole("link", { name: "onboarding" })).toBeVisible();
  // The group's tab appears once a task names it.
  await page.getByRole("link", { name: "Group hr" }).click();
  await expect(page.getByRole("link", { name: "onboarding" })).toBeVisible();
  expect(
    await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded),
  ).toBe(true);
  await screenshot(page, "people-inbox-group");
});
