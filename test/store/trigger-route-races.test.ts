/**
 * Two keys must never take one trigger route, however their publishes race:
 * N publishes of different keys declaring the same route, at once, from two
 * database handles (two nodes; one on SQLite, whose file one process owns)
 * — exactly one wins, every other one is refused with a pointer at the
 * trigger, and the route table built from the store afterwards has the
 * winner's route only. Real databases (test/support/backends.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { InvalidDocumentError } from "../../src/domain/errors.ts";
import { DefinitionVersions } from "../../src/engine/definitions/definition-versions.ts";
import { TriggerRoutes } from "../../src/engine/definitions/triggers/trigger-routes.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { minimal } from "../support/definition-fixtures.ts";

const N = 12;
const ROUNDS = 3;

const withTrigger = (key: string, path: string) => ({
  ...minimal(key),
  triggers: [{ method: "POST", path }],
});

async function withNodes(b: Backend, fn: (nodes: Database[]) => Promise<void>) {
  const test = await createTestDatabase(b);
  const first = openDatabase(test.url);
  const nodes = [first];
  try {
    await first.migrate();
    if (b.name !== "sqlite") nodes.push(openDatabase(test.url));
    await fn(nodes);
  } finally {
    for (const n of nodes) await n.close();
    await test.drop();
  }
}

for (const b of backends) {
  void describe(`trigger routes under concurrent publishes on ${b.name}`, async () => {
    const opts = await backendTestOptions(b);

    void it(`${N} keys publishing one route at once: exactly one wins`, opts, () =>
      withNodes(b, async (nodes) => {
        const defs = nodes.map((n) => new DefinitionVersions(n.definitions));
        for (let round = 0; round < ROUNDS; round++) {
          const path = `/orders/{id}/round${round}`;
          const outcomes = await Promise.allSettled(
            Array.from({ length: N }, (_, i) =>
              defs[i % defs.length]!.publish(
                { tenantId: "t1", actorId: "alice" },
                `k${round}-${i}`,
                withTrigger(`k${round}-${i}`, i % 2 ? path : path.replace("{id}", "{orderId}")),
              ),
            ),
          );
          const won = outcomes.filter((o) => o.status === "fulfilled");
          assert.equal(won.length, 1, `round ${round}: ${won.length} publishes took the route`);
          for (const o of outcomes) {
            if (o.status === "fulfilled") continue;
            const e: unknown = o.reason;
            assert.ok(e instanceof InvalidDocumentError, `refused with ${String(e)}`);
            assert.deepEqual(
              e.errors.map((x) => x.pointer),
              ["/triggers/0"],
            );
            assert.match(e.errors[0]!.reason, /already taken by definition 'k/);
          }
          const winner = (won[0] as PromiseFulfilledResult<{ key: string }>).value.key;
          // A refused publish wrote nothing: only the winner's key has versions.
          const heads = await nodes[0]!.definitions.publishedHeads("t1");
          assert.deepEqual(
            heads.filter((h) => h.key.startsWith(`k${round}-`)).map((h) => h.key),
            [winner],
          );
          const routes = new TriggerRoutes(nodes[0]!.definitions);
          await routes.rebuild();
          const found = routes.match("t1", "POST", ["orders", "42", `round${round}`]);
          assert.equal(found.kind === "match" && found.target.key, winner);
        }
      }),
    );

    void it("the same route in two tenants at once: both win", opts, () =>
      withNodes(b, async (nodes) => {
        const defs = nodes.map((n) => new DefinitionVersions(n.definitions));
        const results = await Promise.all(
          ["ta", "tb", "tc", "td"].map((tenantId, i) =>
            defs[i % defs.length]!.publish(
              { tenantId, actorId: "alice" },
              "k",
              withTrigger("k", "/x"),
            ),
          ),
        );
        assert.deepEqual(
          results.map((r) => r.version),
          [1, 1, 1, 1],
        );
      }),
    );
  });
}
