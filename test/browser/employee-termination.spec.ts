/**
 * The employee-termination example in the browser: HR, IT, finance and the manager
 * in four browser contexts (each its own cookies), and a clerk of another company
 * in a fifth. HR starts; the three teams each see and complete their task (all
 * three open at once: the parallel split); HR then gets the closing task (the
 * join) and closes; the termination shows closed. The clerk sees none of it, and
 * the backend refuses his direct call for acme's task. Nothing the browser
 * received — pages, answers, headers, cookies — holds TaskFlow's API key.
 */
import type { BrowserContext, Page, Response as Answer } from "@playwright/test";
import { expectAccessible } from "./accessibility.ts";
import { screenshot } from "./console-fixture.ts";
import { expect, signIn, test, TERMINATION_API_KEY } from "./termination-fixture.ts";

/**
 * Everything the browser received, read in full once the story is over. The
 * pages keep polling after that: an answer that arrives after `all()` is not
 * read, since its page may close while it is being read (an unhandled "Target
 * page has been closed" that failed a CI run).
 */
class Received {
  private readonly reads: Promise<string>[] = [];
  private done = false;

  watch(page: Page): void {
    page.on("response", (r) => {
      if (!this.done) this.reads.push(readAll(r));
    });
  }

  async all(): Promise<string[]> {
    this.done = true;
    return Promise.all(this.reads);
  }
}

async function readAll(r: Answer): Promise<string> {
  const headers = JSON.stringify(await r.allHeaders());
  // Waits for the whole body: a fetch made by the page must read its answer for this to end.
  const body = await r.text().catch(() => ""); // a redirect or aborted load has none
  return `${r.url()}\n${headers}\n${body}`;
}

const task = (page: Page, title: RegExp) =>
  page.getByRole("article").filter({ has: page.getByRole("heading", { name: title }) });

test("a termination through four people in parallel, invisible to another company", async ({
  app,
  browser,
}) => {
  // Five browsers, each polling its lists, on a two-core machine: more than the default minute.
  test.setTimeout(180_000);
  const contexts: BrowserContext[] = [];
  const received = new Received();
  /** A browser context of its own (its own cookie) for one person, signed in. */
  const open = async (userId: string, atSignIn?: (page: Page) => Promise<void>) => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    received.watch(page);
    await page.goto(app.url);
    await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
    await atSignIn?.(page);
    await signIn(page, app, userId);
    return page;
  };

  // HR signs in (the sign-in page, as everyone first sees it) and starts the termination.
  const hr = await open("hr-hana", async (page) => {
    await expectAccessible(page, "the sign-in page");
    await screenshot(page, "termination-0-sign-in");
  });
  await expect(hr.getByRole("heading", { name: "Start a termination" })).toBeVisible();
  await expectAccessible(hr, "HR's page");
  await hr.getByLabel("Employee", { exact: true }).fill("Emma Stone");
  await hr.getByLabel("Last day").fill("2030-06-30");
  await hr.getByLabel("Manager").selectOption("mgr-mike");
  await hr.getByLabel("Reason").fill("resignation");
  await hr.getByRole("button", { name: "Start termination" }).click();
  await expect(hr.getByRole("status")).toHaveText("Termination of Emma Stone started.");
  const row = hr.getByRole("row", { name: /Emma Stone/ });
  await expect(row).toContainText("in progress");
  await expect(hr.getByText("No open tasks.")).toBeVisible();
  await screenshot(hr, "termination-1-hr-started");

  // The three teams: each task is open before any is done (the parallel split).
  const it = await open("it-ivan");
  const finance = await open("fin-fiona");
  const manager = await open("mgr-mike");
  const itTask = task(it, /Revoke the accounts .* of Emma Stone \(last day 2030-06-30\)/);
  const financeTask = task(finance, /Final pay of Emma Stone/);
  const handoverTask = task(manager, /Handover of the work of Emma Stone/);
  await expect(itTask).toBeVisible();
  await expect(financeTask).toBeVisible();
  await expect(handoverTask).toBeVisible();
  const acmeTaskId = await itTask.getAttribute("data-task");
  expect(acmeTaskId).toMatch(/^[0-9a-f-]{36}$/);

  await expectAccessible(it, "IT's task");
  await screenshot(it, "termination-2-it-task");
  await itTask.getByLabel("Accounts revoked", { exact: true }).check();
  await itTask.getByLabel(/Equipment returned/).fill("laptop, badge");
  await itTask.getByRole("button", { name: "Complete" }).click();
  await expect(it.getByText("No open tasks.")).toBeVisible();

  await expectAccessible(finance, "finance's task");
  await screenshot(finance, "termination-3-finance-task");
  await financeTask.getByLabel("Final pay", { exact: true }).fill("4180.50");
  await financeTask.getByRole("button", { name: "Complete" }).click();
  await expect(finance.getByText("No open tasks.")).toBeVisible();

  // Two of three done: the join has not fired, HR has nothing yet.
  await hr.reload();
  await expect(hr.getByText("No open tasks.")).toBeVisible();

  await expectAccessible(manager, "the manager's task");
  await screenshot(manager, "termination-4-manager-task");
  await handoverTask.getByLabel("Successor", { exact: true }).fill("dave");
  await handoverTask.getByRole("button", { name: "Complete" }).click();
  await expect(manager.getByText("No open tasks.")).toBeVisible();

  // The join: HR's closing task appears (the page polls), HR closes the file.
  const closeTask = task(hr, /Close the termination file of Emma Stone/);
  await expect(closeTask).toBeVisible();
  await expectAccessible(hr, "HR's closing task");
  await screenshot(hr, "termination-5-hr-close");
  await closeTask.getByRole("button", { name: "Close the file" }).click();
  await expect(hr.getByText("No open tasks.")).toBeVisible();
  await expect(row).toContainText("closed");
  await expectAccessible(hr, "HR's closed termination");
  await screenshot(hr, "termination-6-closed");

  // Globex: an HR clerk too, yet nothing of acme — and a direct call is refused.
  const clerk = await open("clerk-gus");
  await expect(clerk.getByText("No open tasks.")).toBeVisible();
  await expect(clerk.getByText("None started yet.")).toBeVisible();
  await expect(clerk.getByText("Emma Stone")).toHaveCount(0);
  await expectAccessible(clerk, "the globex clerk's page");
  await screenshot(clerk, "termination-7-globex-clerk");
  const direct = await clerk.evaluate(async (id) => {
    const answer = async (r: { status: number; text(): Promise<string> }) =>
      `${r.status} ${await r.text()}`;
    const read = await answer(await fetch(`/api/tasks/${id}`));
    const { csrfToken } = (await (await fetch("/api/session")).json()) as { csrfToken: string };
    const act = await fetch(`/api/tasks/${id}/complete`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrfToken },
      body: JSON.stringify({ vars: {} }),
    });
    return [read, await answer(act)];
  }, acmeTaskId);
  expect(direct).toEqual([
    expect.stringMatching(/^404 \{"error":"NotFound"/),
    expect.stringMatching(/^404 \{"error":"NotFound"/),
  ]);
  // The same id, read by the IT person of acme, is found: the refusal is the tenant's.
  const itRead = await it.evaluate(async (id) => {
    const r = await fetch(`/api/tasks/${id}`);
    return `${r.status} ${await r.text()}`;
  }, acmeTaskId);
  expect(itRead).toMatch(/^200 .*"step":"it"/);

  // The key never reached a browser: not in any answer, header, page or cookie.
  const everything = await received.all();
  expect(everything.length).toBeGreaterThan(20);
  expect(everything.join("\n")).toContain("Emma Stone"); // the scan does see the answers
  for (const text of everything) expect(text).not.toContain(TERMINATION_API_KEY);
  for (const context of contexts) {
    for (const page of context.pages()) {
      expect(await page.content()).not.toContain(TERMINATION_API_KEY);
    }
    expect(JSON.stringify(await context.cookies())).not.toContain(TERMINATION_API_KEY);
  }
  // And TaskFlow itself, on its private port, refuses a call without it.
  expect(app.taskflowUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect((await fetch(`${app.taskflowUrl}/v1/tasks?user=it-ivan`)).status).toBe(401);

  expect(contexts).toHaveLength(5);
  await Promise.all(contexts.map((c) => c.close()));
});
