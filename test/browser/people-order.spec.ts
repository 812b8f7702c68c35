/**
 * The README's own `order` workflow, approved from the Console: its task shows its
 * title and its two named actions; "Reject" without the comment it requires is refused
 * on the comment field and leaves the task open; "Approve" completes it, and the run,
 * which reads `ok.action`, goes on to wait for the pick. The workflow is the README's
 * block as written (its `from "taskflow"` pointed at this checkout's sources, as the
 * docs test does), so a README that drifted from what the Console can approve fails here.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectAccessible } from "./accessibility.ts";
import { expect, loggedInPage, screenshot, testWithServer } from "./console-fixture.ts";
import { runnableBlocks } from "../docs/support/runnable-blocks.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const block = runnableBlocks(join(ROOT, "README.md"), "README.md").find(
  (b) => b.lang === "ts" && b.text.startsWith("// workflows.ts"),
);
if (block === undefined) throw new Error("README.md has no runnable `// workflows.ts` block");
const dir = mkdtempSync(join(tmpdir(), "tf-order-"));
const WORKFLOWS = join(dir, "workflows.ts");
// `workflow` is what the block imports; src/workflow.ts is the package's entry for it.
writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
writeFileSync(
  WORKFLOWS,
  block.text.replaceAll(`from "taskflow"`, `from ${JSON.stringify(join(ROOT, "src/workflow.ts"))}`),
);

const test = testWithServer({ WF_GROUP_warehouse: "dave" }, ["--workflows", WORKFLOWS]);

interface RunJson {
  status: string;
  output: unknown;
}
interface HistoryJson {
  items: { type: string; data: { result?: { action: string | null } } }[];
}

test("the README's order is approved from the Console with its named action", async ({
  browser,
  server,
}) => {
  await server.engine("POST", "workflows/order/runs", {
    id: "order-1",
    input: { orderId: "order-1", amount: 84 },
  });
  const page = await loggedInPage(browser, server, "dave");
  try {
    await page.goto(`${server.url}/console/inbox?group=warehouse`);
    const title = "Approve order order-1 (84 EUR)";
    await page.getByRole("link", { name: title }).click();
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Reject" })).toBeVisible();
    // Both actions are required choices: no plain "Complete".
    await expect(page.getByRole("button", { name: "Complete" })).toHaveCount(0);
    await expectAccessible(page, "the order's task");
    await screenshot(page, "people-order-task");

    // Rejecting needs a comment: refused on the comment field, the task still open.
    await page.getByRole("button", { name: "Reject" }).click();
    const comment = page.getByLabel("Your comment");
    await expect(comment).toHaveAttribute("aria-invalid", "true");
    await expect(comment).toHaveAccessibleDescription(/required with action 'reject'/);
    const [task] = (
      await server.engine<{ items: { id: string; status: string }[] }>(
        "GET",
        "tasks?group=warehouse&status=all",
        undefined,
        "dave",
      )
    ).items;
    // Open again for the warehouse: the page released the claim it made to complete it.
    expect(task?.status).toBe("open");

    // A comment goes into the task's history, beside the claim and release just made.
    await page.getByLabel("Add a comment").fill("Stock checked: 2 left.");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    const history = page.getByRole("region", { name: "History and comments" });
    await expect(history.getByRole("listitem").last()).toContainText("dave commented");
    await expect(history).toContainText("Stock checked: 2 left.");
    await expect(history).toContainText("dave released it");

    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page).toHaveURL(/\/console\/inbox/);
    // The inbox confirms which task was completed, and how.
    await expect(page.getByRole("status")).toContainText(`Completed “${title}” — Approve`);
    const done = await server.engine<{ action: string | null; status: string }>(
      "GET",
      `tasks/${task?.id ?? ""}`,
      undefined,
      "dave",
    );
    expect([done.status, done.action]).toEqual(["done", "approve"]);
    // The run read `ok.action === "approve"` and went on: it waits for the pick.
    await expect
      .poll(async () => {
        const h = await server.engine<HistoryJson>("GET", "runs/order-1/history");
        return h.items.find((e) => e.type === "task")?.data.result?.action ?? null;
      })
      .toBe("approve");
    await server.engine("POST", "runs/order-1/signals/picked", { by: "dave" }, "dave");
    await expect
      .poll(async () => (await server.engine<RunJson>("GET", "runs/order-1")).status)
      .toBe("completed");
    const run = await server.engine<RunJson>("GET", "runs/order-1");
    expect(run.output).toEqual({
      charge: expect.stringMatching(/^ch_/) as unknown,
      pickedBy: "dave",
    });
  } finally {
    await page.context().close();
  }
});
