/**
 * An operator acts on a live run from its page: cancels a run that waits for a signal
 * (after a confirmation), and signals a run through every kind of wait — a sleep, a human
 * task bob completes, the signal (a payload that is not JSON is refused on its field and
 * not sent), a child run — and follows it to its end.
 */
import { fileURLToPath } from "node:url";
import { expectAccessible } from "./accessibility.ts";
import { expect, login, screenshot, testWithServer } from "./console-fixture.ts";

const WORKFLOWS = fileURLToPath(new URL("./operator-workflows.ts", import.meta.url));

const test = testWithServer({}, ["--workflows", WORKFLOWS]);

interface RunState {
  status: string;
  cancelRequested: boolean;
}

test("an operator cancels a run that waits for a signal, after confirming", async ({
  page,
  server,
}) => {
  await server.engine("POST", "workflows/hold/runs", { id: "hold-cancel" });
  await login(page, server, "olga");
  await page.goto(`${server.url}/console/runs/hold-cancel`);
  const status = page.locator("dl.facts .status");
  const timeline = page.getByRole("region", { name: "Timeline" });
  await expect(status).toHaveText("waiting");
  await expect(timeline.getByRole("heading", { name: /Signal wait approval/ })).toContainText(
    "waiting",
  );

  // Backing out of the confirmation leaves the run alone.
  await page.getByRole("button", { name: "Cancel run" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this run?" });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, "the cancel confirmation");
  await dialog.getByRole("button", { name: "Keep it" }).click();
  await expect(dialog).toBeHidden();
  const kept = await server.engine<RunState>("GET", "runs/hold-cancel");
  expect(kept).toMatchObject({ status: "waiting", cancelRequested: false });

  await page.getByRole("button", { name: "Cancel run" }).click();
  await dialog.getByRole("button", { name: "Cancel the run" }).click();
  await expect(dialog).toBeHidden();
  await expect(status).toHaveText("cancelled");
  await expect(page.getByRole("region", { name: "Error" })).toContainText("the run was cancelled");
  await expect(timeline).toContainText("cancellation reached the run here");
  await expect(page.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  const after = await server.engine<RunState>("GET", "runs/hold-cancel");
  expect(after).toMatchObject({ status: "cancelled", cancelRequested: true });
});

test("a run through a sleep, a human task, a signal and a child run, signalled from its page", async ({
  page,
  server,
}) => {
  await server.engine("POST", "workflows/showcase/runs", { id: "show-1" });
  await login(page, server, "olga");
  await page.goto(`${server.url}/console/runs/show-1`);
  const timeline = page.getByRole("region", { name: "Timeline" });
  await expect(timeline.getByRole("heading", { name: /Sleep sleep/ })).toBeVisible();
  await expect(timeline).toContainText("sleeps 1.5 s");

  // bob's inbox gets the run's task; he completes it and the timeline names him.
  let taskId: string | undefined;
  await expect
    .poll(async () => {
      const tasks = await server.engine<{ items: { id: string; status: string }[] }>(
        "GET",
        "tasks?user=bob",
        undefined,
        "bob",
      );
      taskId = tasks.items.find((t) => t.status === "open")?.id;
      return taskId;
    })
    .toBeDefined();
  await server.engine("POST", `tasks/${taskId}/complete`, { vars: { action: "approve" } }, "bob");
  const task = timeline.getByRole("listitem").filter({
    has: page.getByRole("heading", { name: /Human task review/ }),
  });
  await expect(task).toContainText("completed by bob (approve)");
  await expect(timeline.getByRole("heading", { name: /Signal wait go/ })).toContainText("waiting");

  // A payload that is not JSON is refused on its field, and nothing is sent.
  await page.getByLabel("Signal name").fill("go");
  const payload = page.getByLabel("Payload (JSON, optional)");
  await payload.fill("{go: true");
  await page.getByRole("button", { name: "Send signal" }).click();
  await expect(payload).toHaveAttribute("aria-invalid", "true");
  await expect(payload).toHaveAccessibleDescription(/Not valid JSON/);
  await expectAccessible(page, "a waiting run with a payload error");
  await screenshot(page, "operator-run-waiting");
  const history = await server.engine<{ items: { type: string }[] }>("GET", "runs/show-1/history");
  expect(history.items.map((e) => e.type)).not.toContain("signal");

  await payload.fill('{"go": true}');
  await page.getByRole("button", { name: "Send signal" }).click();
  await expect(page.getByRole("status")).toContainText("Signal “go” sent.");
  await expect(page.locator("dl.facts .status")).toHaveText("completed");
  await expect(timeline).toContainText('signal received with payload {"go":true}');
  await expect(page.getByRole("region", { name: "Output" })).toContainText('"reviewedBy": "bob"');
  await expectAccessible(page, "a completed run with every kind of wait");
  await screenshot(page, "operator-run-waits");

  const child = timeline.getByRole("link", { name: /^show-1:/ });
  await child.click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/Run show-1:\d+/);
  await expect(page.locator("dl.facts .status")).toHaveText("completed");
  await expect(page.getByRole("link", { name: "show-1", exact: true })).toBeVisible();
});
