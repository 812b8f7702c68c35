/**
 * A parallel approval through the pages: bob and carol each see and approve their
 * branch's task; the manager's open inbox then shows the join's next task without a
 * reload (live events). The starter follows it on "My processes" and the instance page.
 */
import type { Page } from "@playwright/test";
import { expectAccessible } from "./accessibility.ts";
import { expect, screenshot, test } from "./console-fixture.ts";
import { PARALLEL_APPROVAL } from "./people-definitions.ts";
import { inboxOf, pageOf } from "./people-pages.ts";

async function approveFromInbox(page: Page, title: string): Promise<void> {
  await page.getByRole("link", { name: "Inbox", exact: true }).click();
  await page.getByRole("link", { name: title }).click();
  await expect(page.getByRole("heading", { name: title })).toBeVisible();
  await page.getByRole("button", { name: "approve" }).click();
  await expect(page).toHaveURL(/\/console\/inbox$/);
  await expect(page.getByText("No tasks in this list.")).toBeVisible();
}

test("both approvers see their task; after both, the manager's page shows the next task live", async ({
  browser,
  server,
}) => {
  await server.engine("POST", `definitions/${PARALLEL_APPROVAL.key}/publish`, PARALLEL_APPROVAL);
  const dave = await pageOf(browser, server, "dave");
  await dave.goto(`${server.url}/console/inbox`);
  await expect(dave.getByText("No tasks in this list.")).toBeVisible();
  await dave.evaluate(
    () => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true),
  );

  const started = await server.engine<{ instanceId: string }>(
    "POST",
    "processes",
    { processKey: PARALLEL_APPROVAL.key, vars: { item: "laptop" } },
    "erin",
  );
  await inboxOf(server, "bob");
  await inboxOf(server, "carol");

  const bob = await pageOf(browser, server, "bob");
  const carol = await pageOf(browser, server, "carol");
  await approveFromInbox(bob, "IT approval");
  // One approval is not the join: the manager still has nothing.
  await expect(dave.getByText("No tasks in this list.")).toBeVisible();
  await approveFromInbox(carol, "Finance approval");

  await expect(dave.getByRole("link", { name: "Manager decision" })).toBeVisible({
    timeout: 15_000,
  });
  expect(
    await dave.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded),
  ).toBe(true);
  await expectAccessible(dave, "the inbox with the manager's task");
  await dave.getByRole("link", { name: "Manager decision" }).click();
  await expect(dave.getByRole("heading", { name: "Manager decision" })).toBeVisible();
  await dave.getByRole("button", { name: "approve" }).click();
  await expect(dave).toHaveURL(/\/console\/inbox$/);

  const erin = await pageOf(browser, server, "erin");
  await erin.getByRole("link", { name: "My processes" }).click();
  await expect(erin.getByRole("heading", { name: "My processes" })).toBeVisible();
  const link = erin.locator(`a[href="/console/instances/${started.instanceId}"]`);
  await expect(link).toHaveText(PARALLEL_APPROVAL.key);
  await expectAccessible(erin, "my processes");
  // The process is closed now: the "Open" filter leaves it out, "Closed" keeps it.
  await erin.getByLabel("State").selectOption("open");
  await expect(erin).toHaveURL(/state=open/);
  await expect(link).toHaveCount(0);
  await erin.getByLabel("State").selectOption("closed");
  await expect(link).toHaveCount(1);
  await screenshot(erin, "people-processes");

  await link.click();
  await expect(
    erin.getByRole("heading", { name: `Process ${PARALLEL_APPROVAL.key}` }),
  ).toBeVisible();
  await expect(erin.getByRole("link", { name: "Diagram" })).toHaveAttribute(
    "href",
    `/console/instances/${started.instanceId}/path`,
  );
  // The branches' tasks are shown with the process's own, with who completed each.
  const tasks = erin
    .getByRole("table")
    .filter({ has: erin.getByRole("columnheader", { name: "Step" }) });
  const completers = [
    ["it", "bob"],
    ["finance", "carol"],
    ["decide", "dave"],
  ] as const;
  for (const [step, who] of completers) {
    const row = tasks
      .getByRole("row")
      .filter({ has: erin.getByRole("link", { name: step, exact: true }) });
    // Step, assignee, state, completed by.
    await expect(row.getByRole("cell").nth(2)).toHaveText("done");
    await expect(row.getByRole("cell").nth(3)).toHaveText(who);
  }
  await expect(
    erin.getByRole("listitem").filter({ hasText: "completed the task (finance)" }),
  ).toContainText("carol");
  await expectAccessible(erin, "the instance page");
  await screenshot(erin, "people-instance");
});
