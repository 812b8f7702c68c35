/** TreeTurns: completion statements of one tree run one at a time in a process. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { TreeTurns } from "../../../src/engine/human-tasks/tree-turns.ts";

void describe("TreeTurns", () => {
  void it("runs one tree's turns one at a time, in arrival order, and other trees alongside", async () => {
    const turns = new TreeTurns();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const turn = (tenant: string, root: string, name: string) =>
      turns.run(tenant, root, async () => {
        running++;
        most = Math.max(most, running);
        log.push(`${name}+`);
        await sleep(10);
        log.push(`${name}-`);
        running--;
        return name;
      });
    const results = await Promise.all([
      turn("t", "r1", "a"),
      turn("t", "r1", "b"),
      turn("t", "r1", "c"),
      turn("t", "r2", "x"), // another tree
      turn("u", "r1", "y"), // the same root id in another tenant
    ]);
    assert.deepEqual(results, ["a", "b", "c", "x", "y"]);
    const r1 = log.filter((e) => /^[abc]/.test(e));
    assert.deepEqual(r1, ["a+", "a-", "b+", "b-", "c+", "c-"]);
    assert.equal(most, 3); // a, x and y at once
    assert.equal(turns.size, 0);
  });

  void it("a failing turn passes its error on and does not block the next", async () => {
    const turns = new TreeTurns();
    const failing = turns.run("t", "r", () => Promise.reject(new Error("boom")));
    const next = turns.run("t", "r", () => Promise.resolve("next"));
    await assert.rejects(failing, /boom/);
    assert.equal(await next, "next");
    assert.equal(turns.size, 0);
  });
});
