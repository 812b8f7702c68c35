/**
 * Migration 018 on a database made before it: a definition's userTask kept its
 * form and action names in the referral's vars (`taskflowForm`,
 * `taskflowActions`, `taskflowActionRequired`), where the complete route read
 * them. After the migration an unfinished task of such a referral has them as
 * its own, so its completion is checked as before; a finished one and a task
 * of a plain referral are left as they were.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Kysely, Migrator, sql } from "kysely";
import { dialectFor, openDatabase } from "../../src/adapters/store/open-database.ts";
import { migrationProvider } from "../../src/adapters/store/migrations/migration-provider.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";

const T = "tenant-a";
const NOW = 1_700_000_000_000;
const FORM = { type: "object", properties: { note: { type: "string" } } };

for (const b of backends) {
  void describe(`migration 018 on a database with forms in referral vars: ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    void it(
      "copies the form and actions of unfinished tasks into their columns",
      options,
      async () => {
        const fresh = await createTestDatabase(b, { empty: true });
        const parts = dialectFor(fresh.url);
        const db = new Kysely<unknown>({ dialect: parts.kysely });
        try {
          const migrator = new Migrator({ db, provider: migrationProvider(parts) });
          assert.equal((await migrator.migrateTo("017_task_details")).error, undefined);
          await sql`insert into definitions (tenant_id, id, ${sql.id("key")}, name, created_at)
          values (${T}, 'd1', 'expense', 'Expense', ${NOW})`.execute(db);
          const instance = (id: string, parent: string | null, vars: object) =>
            sql`insert into instances (tenant_id, id, kind, definition_id, definition_key,
              parent_instance_id, root_instance_id, status, vars, started_by, created_at)
            values (${T}, ${id}, ${parent === null ? "process" : "referral"}, 'd1', 'expense',
              ${parent}, 'root', 'running', ${JSON.stringify(vars)}, 'alice', ${NOW})`.execute(db);
          await instance("root", null, {});
          await instance("ref", "root", {
            title: "Approve",
            taskflowForm: FORM,
            taskflowActions: ["approve", "reject"],
            taskflowActionRequired: true,
          });
          await instance("plain", "root", { title: "taskflow is in the text only" });
          const task = (id: string, referral: string, status: string) =>
            sql`insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
              assignee_kind, assignee_id, assigned_by, status, created_at)
            values (${T}, ${id}, ${referral}, 'root', 'expense', 'user', 'bob', 'alice',
              ${status}, ${NOW})`.execute(db);
          await task("open", "ref", "open");
          await task("claimed", "ref", "claimed");
          await task("done", "ref", "done");
          await task("other", "plain", "open");
        } finally {
          await db.destroy();
        }
        const database = openDatabase(fresh.url);
        try {
          assert.ok((await database.migrate()).includes("018_task_forms"));
          const asks = {
            form: FORM,
            formUi: null,
            actions: [
              { name: "approve", label: null, commentRequired: false },
              { name: "reject", label: null, commentRequired: false },
            ],
            actionRequired: true,
          };
          const none = { form: null, formUi: null, actions: null, actionRequired: false };
          for (const [id, want] of [
            ["open", asks],
            ["claimed", asks],
            ["done", none],
            ["other", none],
          ] as const) {
            const t = await database.tasks.getTask(T, id);
            assert.ok(t, id);
            const { form, formUi, actions, actionRequired } = t;
            assert.deepEqual({ form, formUi, actions, actionRequired }, want, id);
            assert.deepEqual([t.action, t.comment], [null, null]);
          }
        } finally {
          await database.close();
        }
        await fresh.drop();
      },
    );
  });
}
