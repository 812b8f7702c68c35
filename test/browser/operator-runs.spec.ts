/**
 * The operator's runs list and a run's timeline, against a server that runs the durable
 * workflows of operator-workflows.ts: a step that fails once and then succeeds, a run that
 * fails for good, filters, pages, and runs that appear without a reload.
 */
import { fileURLToPath } from "node:url";
import { expectAccessible } from "./accessibility.ts";
import { expect, login, screenshot, testWithServer } from "./console-fixture.ts";

const WORKFLOWS = fileURLToPath(new URL("./operator-workflows.ts", import.meta.url));

const test = testWithServer({}, ["--workflows", WORKFLOWS]);

/** A retry waits 5–10 s (durable backoff); the run then settles. */
const SETTLES = { timeout: 30_000 };

test("a run's timeline shows the failed attempt of a retried step, and a run's final failure", async ({
  page,
  server,
}) => {
  test.setTimeout(90_000);
  await server.engine("POST", "workflows/flaky/runs", { id: "flaky-1" });
  await server.engine("POST", "workflows/doomed/runs", { id: "doomed-1" });
  await server.engine("POST", "workflows/shaky/runs", { id: "shaky-1" });
  await login(page, server, "olga");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click();
  await page.getByRole("link", { name: "flaky-1" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Run flaky-1");

  // The page follows the run live: waiting on the backoff, then completed, with no reload.
  const status = page.locator("dl.facts .status");
  const timeline = page.getByRole("region", { name: "Timeline" });
  await expect(timeline).toContainText("attempt 1 failed: Error: card network timeout");
  await expect(status).toHaveText("completed", SETTLES);
  await expect(timeline.getByRole("heading", { name: /Step charge/ })).toContainText("2 attempts");
  await expect(timeline).toContainText('completed with {"charged":true,"attempt":2}');
  await expect(timeline).toContainText(/took \d+(\.\d)? s/);
  await expect(page.getByRole("region", { name: "Output" })).toContainText('"charged": true');
  await expectAccessible(page, "a completed run after a retry");
  await screenshot(page, "operator-run-retried");

  // Attempts retried in memory have no event of their own; the outcome lists them.
  await page.getByRole("link", { name: "← All runs" }).click();
  await page.getByRole("link", { name: "shaky-1" }).click();
  await expect(status).toHaveText("completed", SETTLES);
  const reserve = timeline
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: /Step reserve/ }) });
  await expect(reserve.getByRole("heading")).toContainText("3 attempts");
  const lines = reserve.getByRole("list").getByRole("listitem");
  await expect(lines).toHaveCount(3);
  await expect(lines.nth(0)).toContainText(
    "attempt 1 failed: Error: seat map busy (1); retried in memory",
  );
  await expect(lines.nth(1)).toContainText("attempt 2 failed: Error: seat map busy (2)");
  await expect(lines.nth(2)).toContainText('completed with {"seat":"12A"}');
  await expectAccessible(page, "a run whose step was retried in memory");

  await page.getByRole("link", { name: "← All runs" }).click();
  await page.getByRole("link", { name: "doomed-1" }).click();
  await expect(status).toHaveText("failed", SETTLES);
  await expect(page.getByRole("region", { name: "Error" })).toContainText(
    "Error: warehouse closed",
  );
  const step = timeline
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: /Step ship/ }) });
  await expect(step.getByRole("heading")).toContainText("2 attempts");
  await expect(step.getByRole("heading")).toContainText("failed");
  const events = step.getByRole("list").getByRole("listitem");
  await expect(events).toHaveCount(2);
  await expect(events.nth(0)).toContainText("step_retry");
  await expect(events.nth(0)).toContainText("attempt 1 failed: Error: warehouse closed");
  await expect(events.nth(1)).toContainText("failed: Error: warehouse closed");
  await expect(events.nth(1)).toContainText(/after \d+(\.\d)? s/);
  // A finished run offers no actions.
  await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  await expectAccessible(page, "a failed run");
  await screenshot(page, "operator-run");
});

test("the runs list filters by status, workflow, starter and creation time, and pages", async ({
  page,
  server,
}) => {
  const ids = Array.from({ length: 27 }, (_, i) => `leaf-${String(i).padStart(2, "0")}`);
  for (const [i, id] of ids.entries()) {
    await server.engine("POST", "workflows/leaf/runs", { id, input: i });
  }
  await server.engine("POST", "workflows/leaf/runs", { id: "leaf-carol", input: 1 }, "carol");
  await server.engine("POST", "workflows/hold/runs", { id: "hold-filter" });
  await login(page, server, "olga");
  await page.goto(`${server.url}/console/runs`);
  const rows = page.getByRole("table", { name: "Runs" }).getByRole("row");

  await page.getByLabel("Workflow").fill("leaf");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/workflow=leaf/);
  // Newest first: leaf-carol, leaf-26 … leaf-03 on the first page.
  await expect(rows).toHaveCount(26); // a header and 25 runs
  await expect(rows.nth(1)).toContainText("leaf-carol");
  await expect(page.getByRole("link", { name: "leaf-00" })).toHaveCount(0);
  await page.getByRole("button", { name: "Next page" }).click();
  await expect(page.getByText("Page 2")).toBeVisible();
  await expect(rows).toHaveCount(4); // leaf-02, leaf-01, leaf-00
  await expect(rows.nth(3)).toContainText("leaf-00");
  await expect(page.getByRole("button", { name: "Next page" })).toBeDisabled();
  await page.getByRole("button", { name: "Previous page" }).click();
  await expect(page.getByRole("link", { name: "leaf-carol" })).toBeVisible();
  // Oldest first, kept in the address like the filters.
  await page.getByLabel("Order").selectOption("oldest");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/order=oldest/);
  await expect(rows.nth(1)).toContainText("leaf-00");
  await page.getByLabel("Order").selectOption("newest");

  await page.getByLabel("Started by").fill("carol");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(rows).toHaveCount(2);
  await expect(page.getByRole("link", { name: "leaf-carol" })).toBeVisible();

  await page.getByRole("button", { name: "Clear" }).click();
  await page.getByLabel("Status").selectOption("waiting");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByRole("link", { name: "hold-filter" })).toBeVisible();
  await expect(page.getByRole("link", { name: "leaf-00" })).toHaveCount(0);
  await expectAccessible(page, "the runs list");
  await screenshot(page, "operator-runs");

  await page.getByLabel("Created after").fill("2099-01-01T00:00:00");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("No runs match these filters.")).toBeVisible();
  // The engine refuses a window that ends before it starts; the page says why.
  await page.getByLabel("Created before").fill("2098-01-01T00:00:00");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByRole("alert")).toContainText("createdAfter");
});

test("a new run and a run's new status appear on the open list without a reload", async ({
  page,
  server,
}) => {
  await login(page, server, "olga");
  await page.goto(`${server.url}/console/runs?workflow=hold`);
  await expect(page.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "a-live-hold" })).toHaveCount(0);
  await server.engine("POST", "workflows/hold/runs", { id: "a-live-hold" });
  const row = page
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: "a-live-hold" }) });
  await expect(row).toContainText("waiting");
  await server.engine("POST", "runs/a-live-hold/signals/approval", { ok: true });
  await expect(row).toContainText("completed");
});

test("a run's page follows its status without a reload, after 50 runs that sort before it", async ({
  page,
  server,
}) => {
  // Ids sort as text: these 50 come before every other run, the late one after them all
  // (the live events watch the newest runs of each unfinished status; the page also
  // reads its run again every 5 s, should an event be missed).
  for (let i = 0; i < 50; i++) {
    await server.engine("POST", "workflows/leaf/runs", {
      id: `0000-pad-${String(i).padStart(2, "0")}`,
      input: i,
    });
  }
  await server.engine("POST", "workflows/hold/runs", { id: "zz-late-hold" });
  await login(page, server, "olga");
  await page.goto(`${server.url}/console/runs/zz-late-hold`);
  const status = page.locator("dl.facts .status");
  await expect(status).toHaveText("waiting");
  await server.engine("POST", "runs/zz-late-hold/signals/approval", { ok: true });
  await expect(status).toHaveText("completed");
  await expect(page.getByRole("region", { name: "Timeline" })).toContainText(
    'signal received with payload {"ok":true}',
  );
});
