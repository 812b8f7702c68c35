/**
 * The task page: claim a group task and complete it through its form. A bad value is
 * refused on its field (aria-invalid, the reason read with the field) and the task
 * stays open; a good one completes it and leads back to the inbox. A due time that is
 * no time (vars are the caller's) is shown as written instead of breaking the page.
 */
import type { Page } from "@playwright/test";
import { expectAccessible } from "./accessibility.ts";
import { expect, screenshot, test } from "./console-fixture.ts";
import { EXPENSE_FORM } from "./people-definitions.ts";
import { assignUnderNewProcess, inboxOf, pageOf, type TaskJson } from "./people-pages.ts";

function field(page: Page, label: string) {
  return page.getByLabel(label, { exact: false });
}

test("a bad value is refused on its field and the task stays open; a good one completes it", async ({
  browser,
  server,
}) => {
  await server.engine("POST", `definitions/${EXPENSE_FORM.key}/publish`, EXPENSE_FORM);
  await server.engine(
    "POST",
    "processes",
    { processKey: EXPENSE_FORM.key, vars: { who: "erin" } },
    "erin",
  );
  const [task] = await inboxOf(server, "bob");
  if (task === undefined) throw new Error("no task");

  const page = await pageOf(browser, server, "bob");
  await page.goto(`${server.url}/console/inbox?group=clerks`);
  const row = page.getByRole("row").filter({ hasText: "Review the claim of erin" });
  await expect(row).toHaveCount(1);
  await row.getByRole("link", { name: "Review the claim of erin" }).click();

  await expect(page.getByRole("heading", { name: "Review the claim of erin" })).toBeVisible();
  await expectAccessible(page, "the task page");
  await screenshot(page, "people-task");

  const amount = field(page, "Amount (EUR)");
  await amount.fill("0");
  await page.getByRole("button", { name: "approve" }).click();
  await expect(amount).toHaveAttribute("aria-invalid", "true");
  const describedBy = await amount.getAttribute("aria-describedby");
  expect(describedBy).not.toBeNull();
  await expect(page.locator(`[id="${describedBy ?? ""}"]`)).toContainText(">= 1");
  await expect(amount).toHaveAccessibleDescription(/>= 1/);
  await expectAccessible(page, "the task page with a refused value");
  await screenshot(page, "people-task-refused");
  // Refused: the page said so, and the task is open again for the group (the page
  // claimed it to complete it, and released it when the completion was refused).
  const refused = await server.engine<TaskJson>("GET", `tasks/${task.id}`);
  expect(refused.status).toBe("open");
  expect(refused.claimedBy).toBeNull();
  expect(refused.completedBy).toBeNull();
  await expect(page).toHaveURL(new RegExp(`/console/tasks/${task.id}$`));

  await amount.fill("42.5");
  await page.getByLabel("Comment", { exact: true }).fill("receipts attached");
  await page.getByRole("button", { name: "approve" }).click();
  await expect(page).toHaveURL(/\/console\/inbox$/);
  const done = await server.engine<TaskJson>("GET", `tasks/${task.id}`);
  expect(done.status).toBe("done");
  expect(done.completedBy).toBe("bob");
  expect(done.vars).toEqual({ amount: 42.5, comment: "receipts attached", urgent: false });
  expect(done.action).toBe("approve");

  // The done task's page shows what was handed in and offers no form.
  await page.goto(`${server.url}/console/tasks/${task.id}`);
  await expect(page.getByRole("heading", { name: "Submitted" })).toBeVisible();
  await expect(page.getByText("This task is done.")).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: "receipts attached" })).toBeVisible();
  await expect(page.getByRole("button", { name: "approve" })).toHaveCount(0);
  await expectAccessible(page, "a done task");
});

test("claim and release from the inbox row; the other clerk sees the task leave and come back", async ({
  browser,
  server,
}) => {
  await server.engine("POST", `definitions/${EXPENSE_FORM.key}/publish`, EXPENSE_FORM);
  await server.engine(
    "POST",
    "processes",
    { processKey: EXPENSE_FORM.key, vars: { who: "frank" } },
    "frank",
  );
  const [task] = await inboxOf(server, "carol");
  if (task === undefined) throw new Error("no task");
  const bob = await pageOf(browser, server, "bob");
  const carol = await pageOf(browser, server, "carol");
  await carol.goto(`${server.url}/console/inbox?group=clerks`);
  await bob.goto(`${server.url}/console/inbox?group=clerks`);
  const carolsRow = carol
    .getByRole("row")
    .filter({ has: carol.getByRole("button", { name: `Claim task ${task.id}` }) });
  await expect(carolsRow).toHaveCount(1);

  await bob.getByRole("button", { name: `Claim task ${task.id}` }).click();
  await expect(bob.getByRole("button", { name: `Claim task ${task.id}` })).toHaveCount(0);
  expect((await server.engine<TaskJson>("GET", `tasks/${task.id}`)).claimedBy).toBe("bob");
  // A claimed group task leaves the group's list; carol's page follows without a reload.
  await expect(carolsRow).toHaveCount(0);

  await bob.goto(`${server.url}/console/inbox?list=claimed`);
  await bob.getByRole("button", { name: `Release task ${task.id}` }).click();
  await expect(bob.getByRole("button", { name: `Release task ${task.id}` })).toHaveCount(0);
  expect((await server.engine<TaskJson>("GET", `tasks/${task.id}`)).status).toBe("open");
  await expect(carolsRow).toHaveCount(1);
});

test("a task whose vars.dueAt is not a time still opens, showing the text as written", async ({
  browser,
  server,
}) => {
  // vars are the caller's: nothing makes an assignment's dueAt a time.
  const task = await assignUnderNewProcess(server, "lease", {
    assignee: { kind: "user", id: "dave" },
    vars: { title: "Sign the lease", dueAt: "next Tuesday-ish" },
  });
  const page = await pageOf(browser, server, "dave");
  await page.goto(`${server.url}/console/tasks/${task.id}`);
  await expect(page.getByRole("heading", { name: "Sign the lease" })).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: "next Tuesday-ish" })).toBeVisible();
});

test("a task's own title, description, priority and due time: in its inbox row and on its page, overdue marked", async ({
  browser,
  server,
}) => {
  const task = await assignUnderNewProcess(server, "purchase", {
    assignee: { kind: "user", id: "dave" },
    title: "Approve the purchase of 3 laptops",
    description: "Quote attached by erin",
    priority: 85,
    dueAt: "2020-03-01T09:00:00Z",
  });
  const page = await pageOf(browser, server, "dave");
  await page.goto(`${server.url}/console/inbox`);
  const name = "Approve the purchase of 3 laptops";
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(1);
  await page.getByRole("link", { name }).click();
  await expect(page).toHaveURL(new RegExp(`/console/tasks/${task.id}$`));
  await expect(page.getByRole("heading", { name })).toBeVisible();
  await expect(page.getByText("Quote attached by erin")).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: "85" })).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: "overdue" })).toBeVisible();
  await expectAccessible(page, "a task with its own details");
  await screenshot(page, "people-task-details");
});

test("the four-eyes rule: shown on the task, and its refusal shown when the excluded starter tries", async ({
  browser,
  server,
}) => {
  const task = await assignUnderNewProcess(server, "own-expense", {
    assignee: { kind: "group", id: "hr" },
    title: "Approve erin's own expense",
    exclude: { starter: true },
  });
  const page = await pageOf(browser, server, "erin");
  await page.goto(`${server.url}/console/tasks/${task.id}`);
  await expect(page.getByRole("heading", { name: "Approve erin's own expense" })).toBeVisible();
  await expect(
    page.getByRole("definition").filter({ hasText: "whoever started the process" }),
  ).toBeVisible();
  await page.getByRole("button", { name: "Complete" }).click();
  await expect(page.getByRole("alert")).toContainText("may not complete or claim task");
  await expect(page.getByRole("alert")).toContainText("started its process");
  await expectAccessible(page, "a task refused by the four-eyes rule");
  await screenshot(page, "people-task-four-eyes");
  const after = await server.engine<TaskJson>("GET", `tasks/${task.id}`);
  expect([after.status, after.claimedBy]).toEqual(["open", null]);
});

test("delegation between two people: bob delegates to dave, dave resolves, bob completes", async ({
  browser,
  server,
}) => {
  const task = await assignUnderNewProcess(server, "supplier-check", {
    assignee: { kind: "user", id: "bob" },
    title: "Check the new supplier",
  });
  const bob = await pageOf(browser, server, "bob");
  const dave = await pageOf(browser, server, "dave");
  await bob.goto(`${server.url}/console/tasks/${task.id}`);
  await bob.getByLabel("Delegate to (user id)").fill("dave");
  await bob.getByRole("button", { name: "Delegate", exact: true }).click();
  await expect(bob.getByText("Delegated to dave; it comes back to you")).toBeVisible();
  await expect(bob.getByRole("button", { name: "Complete" })).toHaveCount(0);

  await dave.goto(`${server.url}/console/inbox`);
  await dave.getByRole("link", { name: "Check the new supplier" }).click();
  await expect(dave.getByText("bob delegated this task to you")).toBeVisible();
  await expectAccessible(dave, "a task delegated to the reader");
  await screenshot(dave, "people-task-delegated");
  await dave.getByRole("button", { name: "Resolve" }).click();
  await expect(dave.getByText("This task is bob's.")).toBeVisible();

  await bob.reload();
  await bob.getByRole("button", { name: "Complete" }).click();
  await expect(bob).toHaveURL(/\/console\/inbox/);
  const done = await server.engine<TaskJson & { owner: string; delegation: string }>(
    "GET",
    `tasks/${task.id}`,
  );
  expect([done.status, done.completedBy, done.owner, done.delegation]).toEqual([
    "done",
    "bob",
    "bob",
    "resolved",
  ]);
  const events = await server.engine<{ items: { type: string; actor: string }[] }>(
    "GET",
    `tasks/${task.id}/events`,
  );
  expect(events.items.map((e) => `${e.type}:${e.actor}`)).toEqual([
    "created:erin",
    "delegated:bob",
    "resolved:dave",
    "completed:bob",
  ]);
});
