/**
 * `npm run bench -- console`: the Console's inbox with 10,000 open tasks for one user on
 * SQLite, opened in Chromium (Debian's, through Playwright's launcher). Each of 5 loads is a
 * new tab; the figure is the time from the navigation's start to the first task row
 * being visible (the page's script, the session read, the engine's first page of 100,
 * and the virtualised table's first rows). Every Console answer is `no-store`, so each
 * load fetches the page's assets again, as a user's reload would. Target: median ≤ 1 s.
 */
import { chromium } from "@playwright/test";
import config, { CHROMIUM } from "../test/browser/playwright.config.ts";
import { startBenchConsole, type BenchConsoleServer } from "./console/console-server.ts";
import { printTable, writeResults } from "./lib/results.ts";
import { median } from "./lib/stats.ts";

const TASKS = 10_000;
const LOADS = 5;
const SEED_CONCURRENCY = 8;
const TARGET_MS = 1000;
const USER = "bench";

async function seed(server: BenchConsoleServer): Promise<number> {
  const started = Date.now();
  const p = await server.engine<{ instanceId: string }>(
    "POST",
    "processes",
    { processKey: "chores" },
    "alice",
  );
  let next = 0;
  const worker = async () => {
    while (next < TASKS) {
      const n = next++;
      await server.engine(
        "POST",
        "assignments",
        { parentInstanceId: p.instanceId, assignee: { kind: "user", id: USER }, vars: { n } },
        "alice",
      );
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return (Date.now() - started) / 1000;
}

export async function run(): Promise<void> {
  const server = await startBenchConsole(["alice", USER]);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: config.use?.launchOptions?.args ?? [],
  });
  try {
    console.log(`seeding ${TASKS} tasks for ${USER} …`);
    const seedSeconds = await seed(server);
    const context = await browser.newContext();
    const login = await context.newPage();
    await login.goto(`${server.url}/console/`);
    await login.getByLabel("User id", { exact: true }).fill(USER);
    const before = server.logLength();
    await login.getByRole("button", { name: "Send me a code" }).click();
    await login.getByLabel("Code", { exact: true }).fill(await server.codeFor(USER, before));
    await login.getByRole("button", { name: "Log in" }).click();
    await login.getByRole("button", { name: "Log out" }).waitFor();
    await login.close();

    const samples: number[] = [];
    let rowsInDom = 0;
    for (let i = 0; i < LOADS; i++) {
      const page = await context.newPage();
      const t0 = performance.now();
      await page.goto(`${server.url}/console/inbox`, { waitUntil: "commit" });
      await page.locator("tr.task-row").first().waitFor({ state: "visible" });
      samples.push(performance.now() - t0);
      rowsInDom = await page.locator("tr.task-row").count();
      await page.close();
    }
    // The share of the engine's first page, through the Console's proxy with the same login.
    const apiSamples: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const t0 = performance.now();
      const r = await context.request.get(
        `${server.url}/console/api/engine/tasks?user=${USER}&limit=100`,
      );
      if (!r.ok()) throw new Error(`first page: ${r.status()}`);
      await r.body();
      apiSamples.push(performance.now() - t0);
    }
    await context.close();
    const mid = median(samples);
    printTable([
      {
        tasks: TASKS,
        loads: LOADS,
        "median ms": mid.toFixed(0),
        "min ms": Math.min(...samples).toFixed(0),
        "max ms": Math.max(...samples).toFixed(0),
        "first page API ms": median(apiSamples).toFixed(0),
        "rows in DOM": rowsInDom,
        target: `median ≤ ${TARGET_MS} ms: ${mid <= TARGET_MS ? "met" : "MISSED"}`,
      },
    ]);
    const data = {
      tasks: TASKS,
      loads: LOADS,
      samplesMs: samples,
      medianMs: mid,
      firstPageApiMs: apiSamples,
      rowsInDom,
      seedSeconds,
      targetMs: TARGET_MS,
    };
    console.log(`results: ${writeResults("console", data)}`);
  } finally {
    await browser.close();
    await server.stop();
  }
}
