/**
 * The admin area's definition pages as alice (admin): the list with versions,
 * publishing v2 through the page (its diagram drawn with v2's states), the
 * validator's findings listed by pointer, the diff v1 ↔ v2, retract; and an
 * instance's path on its diagram as bob (a plain user). Axe and a screenshot
 * on each page; no CSP violation (React Flow draws under style-src 'self').
 */
import type { Page } from "@playwright/test";
import { expenseApproval } from "../support/definition-fixtures.ts";
import { expectAccessible } from "./accessibility.ts";
import { expect, loggedInPage, screenshot, test } from "./console-fixture.ts";

const KEY = "leave-admin";

/** v1: bob reviews, then the request ends or is rejected. */
const v1 = {
  key: KEY,
  name: "Leave (admin pages)",
  start: "review",
  states: {
    review: {
      type: "userTask",
      assignee: { user: "bob" },
      title: "Review the request",
      actions: { approve: { next: "done" }, reject: { next: "rejected" } },
    },
    rejected: { type: "terminate", reason: "rejected" },
    done: { type: "end" },
  },
};

/** v2: an approval goes on to carol's sign-off, through a choice on the days. */
const v2 = {
  ...v1,
  states: {
    ...v1.states,
    review: {
      ...v1.states.review,
      actions: { approve: { next: "route" }, reject: { next: "rejected" } },
    },
    route: {
      type: "choice",
      choices: [{ when: "vars.days > 10", next: "signoff" }],
      otherwise: "signoff",
    },
    signoff: { type: "userTask", assignee: { user: "carol" }, title: "Sign off", next: "done" },
  },
};

/** Fails the test on any CSP report in the page's console. */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  return violations;
}

test.describe.configure({ mode: "serial" });

test("publish v2 through the page: its diagram shows v2's states; the diff lists the change; retract", async ({
  browser,
  server,
}) => {
  await server.engine("POST", `definitions/${KEY}/publish`, v1);
  const page = await loggedInPage(browser, server, "alice");
  const csp = watchCsp(page);

  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Definitions" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Definitions" })).toBeVisible();
  await expect(page.getByRole("link", { name: `${KEY} v1` })).toBeVisible();
  await expectAccessible(page, "the definitions page");
  await screenshot(page, "admin-definitions");

  // A definition with a dangling state name: every finding listed with its pointer.
  await page.getByRole("link", { name: `Publish a new version of ${KEY}` }).click();
  const text = page.getByLabel("Definition (JSON)");
  await expect(text).toHaveValue(/"review"/);
  const broken = {
    ...v2,
    states: { ...v2.states, signoff: { ...v2.states.signoff, next: "nowhere" } },
  };
  await text.fill(JSON.stringify(broken, null, 2));
  await page.getByRole("button", { name: "Publish" }).click();
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Validation errors");
  await expect(
    alert.getByRole("listitem").filter({ hasText: "/states/signoff/next" }),
  ).toContainText("nowhere");
  await expect(text).toHaveAttribute("aria-invalid", "true");
  await expectAccessible(page, "the publish page with findings");
  await screenshot(page, "admin-publish");

  await text.fill(JSON.stringify(v2, null, 2));
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByRole("heading", { level: 1, name: `${KEY} v2` })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/console/definitions/${KEY}/versions/2$`));
  // The diagram draws every state of v2, the new ones included.
  for (const state of ["review", "route", "signoff", "rejected", "done"]) {
    await expect(page.locator(`.react-flow__node[data-id="${state}"]`)).toBeVisible();
  }
  // approve, reject, the choice (its when and otherwise on one arrow), next.
  await expect(page.locator(".react-flow__edge")).toHaveCount(4);
  await expect(page.locator(".react-flow__edge").filter({ hasText: "otherwise" })).toContainText(
    "vars.days > 10 | otherwise",
  );
  await expect(page.getByText("Diagram: leave-admin v2")).toBeVisible();
  await expectAccessible(page, "the version page with its diagram");
  await screenshot(page, "admin-version");

  await page.getByRole("link", { name: "Compare with another version" }).click();
  await expect(page.getByLabel("From", { exact: true })).toHaveValue("1");
  await expect(page.getByLabel("To", { exact: true })).toHaveValue("2");
  const changes = page.locator("table.changes");
  await expect(changes.getByRole("row").filter({ hasText: "/states/signoff" })).toContainText(
    "add",
  );
  await expect(
    changes.getByRole("row").filter({ hasText: "/states/review/actions/approve/next" }),
  ).toContainText('"route"');
  await expectAccessible(page, "the diff page");
  await screenshot(page, "admin-diff");
  // Picking the same version twice: no change.
  await page.getByLabel("From", { exact: true }).selectOption("2");
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page.getByRole("heading", { name: /^0 changes/ })).toBeVisible();

  // Retract v1, asked first.
  await page.goto(`${server.url}/console/definitions/${KEY}/versions/1`);
  await page.getByRole("button", { name: "Retract version 1" }).click();
  await page.getByRole("button", { name: "Yes, retract" }).click();
  await expect(page.getByRole("status")).toContainText("retracted");
  await expect(page.locator(".badge.status-retracted")).toBeVisible();
  const versions = await server.engine<{ items: { version: number; status: string }[] }>(
    "GET",
    `definitions/${KEY}/versions`,
  );
  expect(versions.items.find((v) => v.version === 1)?.status).toBe("retracted");
  expect(csp).toEqual([]);
  await page.context().close();
});

test("an instance's path: the states it passed and the one it is in, on its version's diagram (bob, a user)", async ({
  browser,
  server,
}) => {
  const started = await server.engine<{ instanceId: string; version: number }>(
    "POST",
    "processes",
    { processKey: KEY, vars: { days: 3 } },
    "bob",
  );
  expect(started.version).toBe(2);
  // bob's review task, made by the worker; approving it leads to carol's sign-off.
  let taskId: string | undefined;
  await expect
    .poll(async () => {
      const r = await server.engine<{ items: { id: string; rootInstanceId: string }[] }>(
        "GET",
        "tasks?user=bob",
        undefined,
        "bob",
      );
      taskId = r.items.find((t) => t.rootInstanceId === started.instanceId)?.id;
      return taskId;
    })
    .toBeDefined();
  await server.engine("POST", `tasks/${taskId}/complete`, { action: "approve", vars: {} }, "bob");
  await expect
    .poll(async () => {
      const r = await server.engine<{ items: { rootInstanceId: string }[] }>(
        "GET",
        "tasks?user=carol",
        undefined,
        "carol",
      );
      return r.items.some((t) => t.rootInstanceId === started.instanceId);
    })
    .toBe(true);

  const page = await loggedInPage(browser, server, "bob");
  const csp = watchCsp(page);
  // No admin pages in bob's nav, and their routes are not his.
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Definitions" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "API keys" })).toHaveCount(0);

  await page.goto(`${server.url}/console/instances/${started.instanceId}/path`);
  await expect(page.getByRole("heading", { level: 1, name: /Path of instance/ })).toBeVisible();
  await expect(page.getByText("the newest published when it started")).toBeVisible();
  await expect(page.locator('.react-flow__node[data-id="review"] .state-node')).toHaveClass(
    /highlighted/,
  );
  await expect(page.locator('.react-flow__node[data-id="signoff"] .state-node')).toHaveClass(
    /current/,
  );
  // The choice between the two user tasks made no referral: inferred, as the only way.
  await expect(page.locator('.react-flow__node[data-id="route"] .state-node')).toHaveClass(
    /highlighted/,
  );
  for (const state of ["rejected", "done"]) {
    await expect(page.locator(`.react-flow__node[data-id="${state}"] .state-node`)).not.toHaveClass(
      /highlighted|current/,
    );
  }
  await expect(page.locator("ol.visits li")).toHaveCount(2);
  await expect(page.locator("ol.visits li").first()).toContainText("done by bob");
  await expectAccessible(page, "the instance path page");
  await screenshot(page, "admin-instance-path");

  // carol signs off: the process ends, and its end is on the path too.
  const carol = await server.engine<{ items: { id: string; rootInstanceId: string }[] }>(
    "GET",
    "tasks?user=carol",
    undefined,
    "carol",
  );
  const signoff = carol.items.find((t) => t.rootInstanceId === started.instanceId)!;
  await server.engine("POST", `tasks/${signoff.id}/complete`, { vars: {} }, "carol");
  await expect
    .poll(async () => {
      await page.reload();
      return page.locator('.react-flow__node[data-id="done"] .state-node').getAttribute("class");
    })
    .toMatch(/highlighted/);
  await expect(page.locator('.react-flow__node[data-id="signoff"] .state-node')).toHaveClass(
    /highlighted/,
  );
  await expect(page.locator(".state-node.current")).toHaveCount(0);
  expect(csp).toEqual([]);
  await page.context().close();
});

test("every state type and parallel branches are drawn; the text list says the same", async ({
  browser,
  server,
}) => {
  const doc = expenseApproval("expense-admin");
  // Its code steps and workflow are served by no worker here: drawn, never run.
  await server.engine("POST", "definitions/expense-admin/publish?allowUnknownSteps=true", doc);
  const page = await loggedInPage(browser, server, "alice");
  const csp = watchCsp(page);
  await page.goto(`${server.url}/console/definitions/expense-admin/versions/1`);
  await expect(page.getByRole("heading", { level: 1, name: "expense-admin v1" })).toBeVisible();
  const ids = [
    ...Object.keys(doc.states as object),
    "pay/0/charge",
    "pay/0/done",
    "pay/1/notify",
    "pay/1/done",
  ];
  await expect(page.locator(".react-flow__node")).toHaveCount(ids.length);
  for (const id of ids)
    await expect(page.locator(`.react-flow__node[data-id="${id}"]`)).toBeAttached();
  await page.getByText("States and transitions as text").click();
  const pay = page
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: "pay", exact: true }) });
  await expect(pay).toContainText("pay/0/charge (branch 1)");
  await expect(pay).toContainText("settle");
  await expectAccessible(page, "a version with parallel branches, its text list open");
  await screenshot(page, "admin-version-parallel");
  expect(csp).toEqual([]);
  await page.context().close();
});
