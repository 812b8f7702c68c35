/**
 * The inbox query on PostgreSQL with 1,000,000 tasks, 100,000 users and 500
 * groups, each measured user in 20 groups.
 *
 * Shape of the data: 60 % user tasks (6 per user), 40 % group tasks (800 per
 * group); half of all tasks open, a tenth claimed, the rest finished. A user's
 * 20 groups then hold ~8,000 open tasks: the query must not sort them to return
 * the first 50 (see the UNION ALL in the store's inbox read).
 */
import pg from "pg";
import { createStore } from "../src/adapters/store/create-store.ts";
import { backends, createTestDatabase, unavailableReason } from "../test/support/backends.ts";
import { printTable } from "./lib/results.ts";
import { summarize, type Summary } from "./lib/stats.ts";

const TASKS = 1_000_000;
const USERS = 100_000;
const GROUPS = 500;
const GROUPS_PER_USER = 20;
const TASKS_PER_REFERRAL = 10;
const SAMPLES = 2_000;
const TENANT = "bench";

export async function benchInbox(): Promise<{
  firstPage: Summary;
  secondPage: Summary;
  seedSeconds: number;
} | null> {
  const b = backends.find((x) => x.name === "postgres")!;
  const why = await unavailableReason(b);
  if (why) {
    console.log(`skipping inbox bench: ${why}`);
    return null;
  }
  const db = await createTestDatabase(b);
  const store = createStore(db.url);
  try {
    await store.migrate();
    console.log(`\nseeding ${TASKS.toLocaleString()} tasks on PostgreSQL …`);
    const t0 = performance.now();
    await seed(db.url);
    const seedSeconds = (performance.now() - t0) / 1000;
    const groupsOf = (u: number) =>
      Array.from({ length: GROUPS_PER_USER }, (_, k) => `g${(u * 7 + k) % GROUPS}`);
    const query = (u: number, after?: string) =>
      store.inbox({
        tenantId: TENANT,
        assignees: [
          { kind: "user", id: `u${u}` },
          ...groupsOf(u).map((id) => ({ kind: "group" as const, id })),
        ],
        claimedBy: `u${u}`,
        limit: 51,
        after,
      });
    for (let i = 0; i < 200; i++) await query(i); // warm the buffer cache and the plan cache
    const first: number[] = [];
    const second: number[] = [];
    let rows = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const u = Math.floor(Math.random() * USERS);
      let t = performance.now();
      const page = await query(u);
      first.push(performance.now() - t);
      rows += page.length;
      t = performance.now();
      await query(u, page[49]?.id);
      second.push(performance.now() - t);
    }
    if (rows < SAMPLES * 50)
      throw new Error(`inbox pages were short (${rows} rows): the seed is wrong`);
    const firstPage = summarize(first, first.reduce((a, b) => a + b, 0) / 1000);
    const secondPage = summarize(second, second.reduce((a, b) => a + b, 0) / 1000);
    console.log(
      `\ninbox on PostgreSQL: ${TASKS.toLocaleString()} tasks, user in ${GROUPS_PER_USER} groups, page of 50 (store query, ${SAMPLES} random users)`,
    );
    printTable([
      {
        page: "first",
        "p50 ms": firstPage.p50,
        "p99 ms": firstPage.p99,
        "queries/s (serial)": firstPage.perSecond,
      },
      {
        page: "second (cursor)",
        "p50 ms": secondPage.p50,
        "p99 ms": secondPage.p99,
        "queries/s (serial)": secondPage.perSecond,
      },
    ]);
    return { firstPage, secondPage, seedSeconds };
  } finally {
    await store.close();
    await db.drop();
  }
}

/** Set-based seed in SQL: a million rows in seconds instead of a million round trips. */
async function seed(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const referrals = TASKS / TASKS_PER_REFERRAL;
    const id = (expr: string) => `lpad(to_hex(${expr}), 8, '0') || '-0000-7000-8000-000000000000'`;
    await c.query(
      `INSERT INTO definitions (tenant_id, id, key, name, created_at) VALUES ($1, 'def', 'bench', 'bench', 0)`,
      [TENANT],
    );
    await c.query(
      `INSERT INTO instances (tenant_id, id, kind, definition_id, definition_key, parent_instance_id, root_instance_id, status, process_state, vars, started_by, created_at)
       SELECT $1, 'r' || lpad(to_hex(i), 8, '0'), 'process', 'def', 'bench', NULL, 'r' || lpad(to_hex(i), 8, '0'), 'running', 'open', '{}', 'u' || (i % ${USERS}), 0
       FROM generate_series(0, ${referrals / 10 - 1}) i`,
      [TENANT],
    );
    await c.query(
      `INSERT INTO instances (tenant_id, id, kind, definition_id, definition_key, parent_instance_id, root_instance_id, status, process_state, vars, started_by, created_at)
       SELECT $1, ${id("i")}, 'referral', 'def', 'bench', 'r' || lpad(to_hex(i / 10), 8, '0'), 'r' || lpad(to_hex(i / 10), 8, '0'), 'running', NULL, '{}', 'u0', 0
       FROM generate_series(0, ${referrals - 1}) i`,
      [TENANT],
    );
    // Task i: 60 % user tasks, 40 % group tasks; status by i % 10: 0–4 open, 5 claimed, 6–9 done.
    await c.query(
      `INSERT INTO tasks (tenant_id, id, instance_id, root_instance_id, definition_key, assignee_kind, assignee_id, assigned_by, status, claimed_by, created_at)
       SELECT $1, ${id(`${referrals} + i`)}, ${id(`i / ${TASKS_PER_REFERRAL}`)}, 'r' || lpad(to_hex(i / ${TASKS_PER_REFERRAL * 10}), 8, '0'), 'bench',
              CASE WHEN i % 5 < 3 THEN 'user' ELSE 'group' END,
              CASE WHEN i % 5 < 3 THEN 'u' || ((i * 7919) % ${USERS}) ELSE 'g' || ((i * 31) % ${GROUPS}) END,
              'u0',
              CASE WHEN i % 10 < 5 THEN 'open' WHEN i % 10 = 5 THEN 'claimed' ELSE 'done' END,
              CASE WHEN i % 10 = 5 THEN 'u' || ((i * 104729) % ${USERS}) END,
              0
       FROM generate_series(0::bigint, ${TASKS - 1}) i`,
      [TENANT],
    );
    await c.query("ANALYZE");
  } finally {
    await c.end();
  }
}
