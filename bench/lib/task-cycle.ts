/**
 * One REST task cycle (five requests): start a process → assign users ×3 with
 * onAllCompleted → the three users complete in parallel → the last completion
 * performs the join. Shared by the tasks bench and its ceiling comparison.
 */
import type { JsonClient } from "./http-client.ts";

export const API_KEY = "bench-key-0123456789abcdefghijkl";

export async function cycle(c: JsonClient, i: number) {
  const p = await c.expect<{ instanceId: string }>(201, "POST", "/v1/processes", "starter", {
    processKey: "bench",
    vars: { i },
  });
  const a = await c.expect<{ tasks: { id: string; assignee: { id: string } }[] }>(
    201,
    "POST",
    "/v1/assignments",
    "starter",
    {
      parentInstanceId: p.instanceId,
      assignee: { kind: "users", ids: ["u1", "u2", "u3"] },
      onAllCompleted: { assignee: { kind: "user", id: "boss" } },
    },
  );
  const results = await Promise.all(
    a.tasks.map((t) =>
      c.expect<{ joined: unknown }>(200, "POST", `/v1/tasks/${t.id}/complete`, t.assignee.id, {
        vars: { ok: true },
      }),
    ),
  );
  // The join must fire exactly once per cycle, else the figure measures a broken engine.
  if (results.filter((r) => r.joined).length !== 1)
    throw new Error(`cycle ${i}: join fired ${results.filter((r) => r.joined).length} times`);
}
