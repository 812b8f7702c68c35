/**
 * Singleton jobs on every lock backend: two nodes (two coordinations on one
 * database or one Redis, each with its own connections) run the runner with
 * a recording job. One node runs it, never both at once, and the other takes
 * over when the holder stops.
 */
import { describe, test } from "node:test";
import {
  coordinationBackends,
  coordinationTestOptions,
  openTestCoordination,
} from "./support/coordination-backends.ts";
import { assertOneNodeThenTakeover } from "./support/singleton-scenario.ts";

for (const name of coordinationBackends.filter((b) => b !== "memory")) {
  void describe(`singleton jobs on ${name}`, async () => {
    const options = await coordinationTestOptions(name);
    void test(
      "one node at a time; the other takes over when the holder stops",
      options,
      async () => {
        const first = await openTestCoordination(name);
        const second = await first.openAnother();
        try {
          await assertOneNodeThenTakeover(first.coordination.locks, second.coordination.locks);
        } finally {
          await second.close();
          await first.close();
        }
      },
    );
  });
}
