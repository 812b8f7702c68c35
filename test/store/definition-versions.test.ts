/**
 * Definition versions on every backend, through the use cases and the SQL
 * store (real databases from test/support/backends.ts): numbering under
 * concurrent publishes, the one draft per key, retraction, lists, reads and
 * diffs, and that a refused publish writes nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import { DefinitionVersions } from "../../src/engine/definitions/definition-versions.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { expenseApproval, minimal } from "../support/definition-fixtures.ts";

const alice = { tenantId: "t1", actorId: "alice" };
const bob = { tenantId: "t1", actorId: "bob" };

async function withDatabase(
  b: Backend,
  fn: (db: Database, defs: DefinitionVersions) => Promise<void>,
) {
  const test = await createTestDatabase(b);
  const db = openDatabase(test.url);
  try {
    await db.migrate();
    await fn(db, new DefinitionVersions(db.definitions));
  } finally {
    await db.close();
    await test.drop();
  }
}

const codeOf = (e: unknown) => (e instanceof TaskflowError ? e.code : String(e));

for (const b of backends) {
  void describe(`definition versions on ${b.name}`, async () => {
    const opts = await backendTestOptions(b);

    void it(
      "20 publishes of one key at once get versions 1..20, no gaps, no duplicates",
      opts,
      () =>
        withDatabase(b, async (_db, defs) => {
          const results = await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              defs.publish(i % 2 ? alice : bob, "raced", { ...minimal("raced"), name: `Run ${i}` }),
            ),
          );
          const numbers = results.map((r) => r.version).sort((x, y) => x - y);
          assert.deepEqual(
            numbers,
            Array.from({ length: 20 }, (_, i) => i + 1),
          );
          const listed = await defs.list(alice, "raced");
          assert.deepEqual(
            listed.map((v) => [v.version, v.status]),
            numbers.map((n) => [n, "published"]),
          );
          // Each stored body carries its own number.
          for (const n of [1, 20]) {
            const v = await defs.get(alice, "raced", n);
            assert.equal((JSON.parse(v.body) as { version: number }).version, n);
          }
        }),
    );

    void it("publishes of a new key create its plain definition row once", opts, () =>
      withDatabase(b, async (db, defs) => {
        await Promise.all(
          Array.from({ length: 5 }, () => defs.publish(alice, "fresh", minimal("fresh"))),
        );
        const d = await db.tasks.getDefinition("t1", "fresh");
        assert.equal(d?.name, "Minimal");
        assert.equal((await db.tasks.listDefinitions("t1", { limit: 10 })).length, 1);
      }),
    );

    void it("one draft per key: saving overwrites it; publishing the draft consumes it", opts, () =>
      withDatabase(b, async (_db, defs) => {
        await defs.saveDraft(alice, "leave", { ...minimal("leave"), name: "First" });
        await defs.saveDraft(bob, "leave", { ...minimal("leave"), name: "Second" });
        const draft = await defs.get(alice, "leave", "draft");
        assert.equal(draft.version, 0);
        assert.equal(draft.status, "draft");
        assert.equal(draft.createdBy, "bob");
        assert.equal((JSON.parse(draft.body) as { name: string }).name, "Second");
        assert.equal((await defs.list(alice, "leave")).length, 1);

        const published = await defs.publish(alice, "leave");
        assert.deepEqual(published, { key: "leave", version: 1 });
        await assert.rejects(defs.get(alice, "leave", "draft"), (e) => codeOf(e) === "NotFound");
        await assert.rejects(defs.publish(alice, "leave"), (e) => codeOf(e) === "NotFound");
        const v1 = await defs.get(alice, "leave", 1);
        assert.equal(v1.createdBy, "alice");
        assert.equal((JSON.parse(v1.body) as { name: string }).name, "Second");
      }),
    );

    void it("publishing a given body leaves the draft alone", opts, () =>
      withDatabase(b, async (_db, defs) => {
        await defs.saveDraft(alice, "k", { ...minimal("k"), name: "Draft" });
        await defs.publish(alice, "k", minimal("k"));
        assert.equal((await defs.get(alice, "k", "draft")).status, "draft");
      }),
    );

    void it("a draft saved while its previous text is being published is never lost", opts, () =>
      withDatabase(b, async (_db, defs) => {
        for (let round = 0; round < 10; round++) {
          await defs.saveDraft(alice, "busy", { ...minimal("busy"), name: `Round ${round}` });
          const [pub] = await Promise.allSettled([
            defs.publish(alice, "busy"),
            defs.saveDraft(bob, "busy", { ...minimal("busy"), name: `Edit ${round}` }),
          ]);
          // Either the publish took the older text and the edit is the new draft, or the
          // edit came first: the publish then published it or refused as a conflict.
          const draft = await defs.get(alice, "busy", "draft").catch(() => undefined);
          const latest = await defs.get(alice, "busy", "latest").catch(() => undefined);
          const names = [draft, latest].map(
            (v) => v && (JSON.parse(v.body) as { name: string }).name,
          );
          assert.ok(
            names.includes(`Edit ${round}`),
            `round ${round}: the edit survives (${names.join(", ")})`,
          );
          if (pub.status === "rejected") assert.equal(codeOf(pub.reason), "Conflict");
        }
      }),
    );

    void it(
      "retract: status only, idempotent; latest skips it; the draft and unknown versions are 404",
      opts,
      () =>
        withDatabase(b, async (_db, defs) => {
          await defs.publish(alice, "r", minimal("r"));
          await defs.publish(alice, "r", { ...minimal("r"), name: "Two" });
          assert.equal((await defs.get(alice, "r", "latest")).version, 2);
          assert.equal((await defs.retract(alice, "r", 2)).status, "retracted");
          assert.equal((await defs.retract(alice, "r", 2)).status, "retracted");
          assert.equal((await defs.get(alice, "r", "latest")).version, 1);
          assert.equal((await defs.get(alice, "r", 2)).status, "retracted");
          await assert.rejects(defs.retract(alice, "r", 3), (e) => codeOf(e) === "NotFound");
          await defs.saveDraft(alice, "r", minimal("r"));
          await assert.rejects(defs.retract(alice, "r", 0), (e) => codeOf(e) === "NotFound");
          // A new publish after a retraction still takes the next number (v1, the head now, is
          // minimal("r"): publishing that again would be unchanged).
          const three = { ...minimal("r"), name: "Three" };
          assert.equal((await defs.publish(alice, "r", three)).version, 3);
        }),
    );

    void it("list: draft first, then versions; tenants see only their own", opts, () =>
      withDatabase(b, async (_db, defs) => {
        await defs.publish(alice, "l", minimal("l"));
        await defs.saveDraft(alice, "l", minimal("l"));
        assert.deepEqual(
          (await defs.list(alice, "l")).map((v) => [v.version, v.status]),
          [
            [0, "draft"],
            [1, "published"],
          ],
        );
        await assert.rejects(defs.list({ tenantId: "t2" }, "l"), (e) => codeOf(e) === "NotFound");
        assert.equal(
          (await defs.publish({ tenantId: "t2", actorId: "x" }, "l", minimal("l"))).version,
          1,
        );
      }),
    );

    void it("diff of two versions is structural, with pointers", opts, () =>
      withDatabase(b, async (_db, defs) => {
        await defs.publish(alice, "d", minimal("d"));
        const changed = minimal("d");
        changed.states.review.title = "Review again";
        delete changed.states.review.next;
        changed.states.review.actions = { ok: { next: "end" } };
        await defs.publish(alice, "d", changed);
        const diff = await defs.diff(alice, "d", 1, 2);
        assert.deepEqual(diff.changes, [
          { pointer: "/states/review/title", op: "replace", from: "Review", to: "Review again" },
          { pointer: "/states/review/actions", op: "add", to: { ok: { next: "end" } } },
          { pointer: "/states/review/next", op: "remove", from: "end" },
        ]);
      }),
    );

    void it(
      "publishing checks across the tenant: a taken trigger route, an unknown sub-process; nothing written",
      opts,
      () =>
        withDatabase(b, async (db, defs) => {
          await defs.publish(alice, "expense-approval", expenseApproval());
          const other = expenseApproval("other");
          other.triggers = [{ method: "post", path: "/hooks/expense-approval/{t}" }];
          other.triggers[0].method = "POST";
          other.states.archive.definition = "nowhere";
          await assert.rejects(defs.publish(alice, "other", other), (e: unknown) => {
            const errors = (e as { errors?: { pointer: string }[] }).errors ?? [];
            assert.deepEqual(
              errors.map((x) => x.pointer),
              ["/states/archive/definition", "/triggers/0"],
            );
            return true;
          });
          await assert.rejects(defs.list(alice, "other"), (e) => codeOf(e) === "NotFound");
          assert.equal(await db.tasks.getDefinition("t1", "other"), undefined);
          // Once the first one's newest version is retracted, its route is free again.
          await defs.retract(alice, "expense-approval", 1);
          other.states.archive.definition = "expense-approval";
          // … and its key can no longer be started as a sub-process.
          await assert.rejects(defs.publish(alice, "other", other), (e: unknown) => {
            const errors = (e as { errors?: { pointer: string }[] }).errors ?? [];
            assert.deepEqual(
              errors.map((x) => x.pointer),
              ["/states/archive/definition"],
            );
            return true;
          });
          other.states.archive.definition = "other";
          assert.equal((await defs.publish(alice, "other", other)).version, 1);
        }),
    );
  });
}
