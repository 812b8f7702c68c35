/**
 * The quick start's Console: the open directory (no WF_USERS, no groups). A group's tab
 * shows its tasks, as `GET /v1/tasks?group=` does over REST, live, and the pages say how roles
 * are given, since every login there is a plain user (Runs is "Not found").
 */
import { DIRECTORY, expect, screenshot, testWithServer } from "./console-fixture.ts";
import { expectAccessible } from "./accessibility.ts";
import { pageOf } from "./people-pages.ts";

const OPEN = Object.fromEntries(Object.keys(DIRECTORY).map((k) => [k, ""]));
const test = testWithServer(OPEN);

test("a group's tab lists its tasks, and the pages say how roles are given", async ({
  browser,
  server,
}) => {
  const root = await server.engine<{ instanceId: string }>(
    "POST",
    "processes",
    { processKey: "restock", name: "Restock" },
    "zoe",
  );
  await server.engine(
    "POST",
    "assignments",
    {
      parentInstanceId: root.instanceId,
      assignee: { kind: "group", id: "warehouse" },
      vars: { title: "Count the pallets" },
    },
    "zoe",
  );
  const page = await pageOf(browser, server, "yann");
  const hint = page.getByRole("note").filter({ hasText: "makes every login a plain user" });
  await expect(hint).toBeVisible();
  await expect(hint).toContainText("WF_CONSOLE_OPERATOR_GROUPS");

  await page.goto(`${server.url}/console/inbox?group=warehouse`);
  await expect(page.getByRole("row").filter({ hasText: "Count the pallets" })).toHaveCount(1);
  await expect(page.getByRole("alert")).toHaveCount(0);
  // The tab is live: a new task of the group shows without a reload.
  await server.engine(
    "POST",
    "assignments",
    {
      parentInstanceId: root.instanceId,
      assignee: { kind: "group", id: "warehouse" },
      vars: { title: "Sweep the dock" },
    },
    "zoe",
  );
  await expect(page.getByRole("row").filter({ hasText: "Sweep the dock" })).toHaveCount(1);
  await expectAccessible(page, "a group's tab over the open directory");
  await screenshot(page, "people-open-directory");

  await page.goto(`${server.url}/console/runs`);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  await expect(page.getByRole("note")).toContainText("WF_CONSOLE_ADMIN_GROUPS");
});
