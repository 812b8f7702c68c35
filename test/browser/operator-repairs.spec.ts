/**
 * The Repairs page: the definition cache's incomplete fences with their owners, and an
 * operator completing one after a confirmation. The test opens a fence in the server's
 * own SQLite file through the store's ledger and keeps its owner beating, as a live
 * writer would, so the server's reaper leaves it to the operator (max age off).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely } from "kysely";
import { SqlCacheLedger } from "../../src/adapters/store/cache-ledger/sql-cache-ledger.ts";
import type { StoreSchema } from "../../src/adapters/store/db-schema.ts";
import { dialectFor } from "../../src/adapters/store/open-database.ts";
import { expectAccessible } from "./accessibility.ts";
import { expect, login, screenshot, testWithServer } from "./console-fixture.ts";

const DIR = mkdtempSync(join(tmpdir(), "tf-repairs-"));
const DATABASE_URL = `sqlite:${join(DIR, "taskflow.db")}`;

const test = testWithServer({ DATABASE_URL, WF_DEFINITION_FENCE_MAX_AGE: "0" }, [], () =>
  rmSync(DIR, { recursive: true, force: true }),
);

const OWNER = "writer-host/4711/browser-test-boot";

test("an operator sees an open fence with its owner and completes it after confirming", async ({
  page,
  server,
}) => {
  await login(page, server, "olga");
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Repairs" })
    .click();
  await expect(page.getByText("No incomplete fences")).toBeVisible();
  await expectAccessible(page, "the repairs page, empty");

  const parts = dialectFor(DATABASE_URL);
  const db = new Kysely<StoreSchema>({ dialect: parts.kysely });
  const ledger = new SqlCacheLedger(db, parts);
  await ledger.beat(OWNER);
  const beating = setInterval(() => void ledger.beat(OWNER), 1000);
  try {
    // Opened behind the page's back: the live "fences" events bring it in, no Refresh click.
    const fence = await ledger.beginMutation("workflow", OWNER);
    const row = page.getByRole("row").filter({ hasText: fence.mutationId });
    await expect(row).toContainText(OWNER);
    await expect(row).toContainText("workflow");
    await expectAccessible(page, "the repairs page with a fence");
    await screenshot(page, "operator-repairs");

    await row.getByRole("button", { name: "Complete" }).click();
    const dialog = page.getByRole("dialog", { name: "Complete this fence?" });
    await expect(dialog).toContainText(OWNER);
    await dialog.getByRole("button", { name: "Keep it" }).click();
    expect((await ledger.listIncomplete()).map((f) => f.mutationId)).toEqual([fence.mutationId]);

    await row.getByRole("button", { name: "Complete" }).click();
    await dialog.getByRole("button", { name: "Complete the fence" }).click();
    await expect(page.getByRole("status")).toContainText(`Fence ${fence.mutationId} completed`);
    await expect(page.getByText("No incomplete fences")).toBeVisible();
    expect(await ledger.listIncomplete()).toEqual([]);
  } finally {
    clearInterval(beating);
    await db.destroy();
  }
});
