/**
 * Logged-in pages for the people-page tests, closed after each test: an open page keeps
 * its live-events stream, and the server's graceful stop waits for open requests.
 */
import type { Browser, Page } from "@playwright/test";
import { loggedInPage, test, type ConsoleServer } from "./console-fixture.ts";

const opened: Page[] = [];

export async function pageOf(browser: Browser, server: ConsoleServer, user: string): Promise<Page> {
  const page = await loggedInPage(browser, server, user);
  opened.push(page);
  return page;
}

test.afterEach(async () => {
  for (const page of opened.splice(0)) await page.context().close();
});

export interface TaskJson {
  id: string;
  instanceId: string;
  rootInstanceId: string;
  status: string;
  claimedBy: string | null;
  completedBy: string | null;
  vars: Record<string, unknown> | null;
  action?: string | null;
}

/** The engine's inbox of `user`, once it holds `count` tasks (a run assigns them soon after its start). */
export async function inboxOf(server: ConsoleServer, user: string, count = 1): Promise<TaskJson[]> {
  for (let i = 0; i < 100; i++) {
    const page = await server.engine<{ items: TaskJson[] }>(
      "GET",
      `tasks?user=${user}`,
      undefined,
      user,
    );
    if (page.items.length >= count) return page.items;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${count} open tasks for ${user}`);
}

/** A plain process of `processKey` that erin starts, and one assignment under it by her. */
export async function assignUnderNewProcess(
  server: ConsoleServer,
  processKey: string,
  assignment: Record<string, unknown>,
): Promise<TaskJson> {
  const root = await server.engine<{ instanceId: string }>(
    "POST",
    "processes",
    { processKey, name: processKey },
    "erin",
  );
  const assigned = await server.engine<{ task: TaskJson }>(
    "POST",
    "assignments",
    { ...assignment, parentInstanceId: root.instanceId },
    "erin",
  );
  return assigned.task;
}
