/**
 * The cap holds across nodes: two processes on the same database or Redis
 * and key prefix each fire 500 concurrent consumes against a cap of 100, on a
 * fixed and on a sliding limiter; exactly 100 of the 1,000 are allowed on
 * each. Then the same with two coordinations inside this process. Memory
 * coordination is one process by design: it runs 1,000 consumes on one node.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import type { WindowKind } from "../../src/engine/coordination/rate-limiter-port.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  REDIS_TEST_URL,
  type CoordinationBackendName,
} from "./support/coordination-backends.ts";
import { avoidWindowEnd, withCoordination } from "./support/counter-cache-helpers.ts";
import type { BurstNodeArgs, BurstNodeResult } from "./support/rate-limit-burst-node.ts";

const CAP = 100;
const PER_NODE = 500;
const WINDOW_MS = 3_600_000;
const NODE_SCRIPT = fileURLToPath(new URL("./support/rate-limit-burst-node.ts", import.meta.url));
/** Boot (tsx) plus 1,000 consumes on a busy 2-core machine, with room to spare. */
const NODE_TIMEOUT_MS = 60_000;

interface BurstNode {
  ready: Promise<void>;
  go(): void;
  result: Promise<BurstNodeResult>;
}

function startNode(args: BurstNodeArgs): BurstNode {
  const child = spawn(process.execPath, ["--import", "tsx", NODE_SCRIPT, JSON.stringify(args)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), NODE_TIMEOUT_MS);
  let out = "";
  let err = "";
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    if (out.includes("ready\n")) markReady();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const result = new Promise<BurstNodeResult>((resolve, reject) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !last.startsWith("{")) {
        reject(new Error(`burst node exited ${String(code)}: ${err || out}`));
        return;
      }
      resolve(JSON.parse(last) as BurstNodeResult);
    });
  });
  // A node that dies before "ready" must fail the test, not leave it waiting.
  return {
    ready: Promise.race([ready, result.then(() => undefined)]),
    go: () => child.stdin.end("go\n"),
    result,
  };
}

async function burst(c: Coordination, window: WindowKind, count: number): Promise<number> {
  const limiter = c.limiters.limiter({
    name: "two-nodes",
    points: CAP,
    windowMs: WINDOW_MS,
    window,
  });
  const results = await Promise.all(
    Array.from({ length: count }, () => limiter.consume("acme", `cap-${window}`)),
  );
  return results.filter((r) => r.allowed).length;
}

/** Backends that are one process by rule: memory (nothing shared) and SQLite (one process per file). */
const ONE_PROCESS: Partial<Record<CoordinationBackendName, string>> = {
  memory: "memory coordination lives in one process: no second node",
  sqlite: "one process per SQLite file: a second node refuses to open it",
};

function registerCases(backend: CoordinationBackendName): void {
  const oneProcess = ONE_PROCESS[backend];
  if (oneProcess !== undefined) {
    void it("one node × 1,000 concurrent consumes, cap 100 → exactly 100 allowed", () =>
      withCoordination(backend, async (c) => {
        await avoidWindowEnd(WINDOW_MS, 30_000);
        const [fixed, sliding] = await Promise.all([
          burst(c, "fixed", 2 * PER_NODE),
          burst(c, "sliding", 2 * PER_NODE),
        ]);
        assert.deepEqual({ fixed, sliding }, { fixed: CAP, sliding: CAP });
      }));
    void it("two nodes", { skip: oneProcess });
    return;
  }

  void it("two processes × 500 concurrent consumes, cap 100 → exactly 100 allowed", () =>
    withCoordination(backend, async (_c, t) => {
      await avoidWindowEnd(WINDOW_MS, 60_000);
      const args: BurstNodeArgs = {
        kind: backend === "redis" ? "redis" : "sql",
        url: t.databaseUrl ?? REDIS_TEST_URL,
        keyPrefix: t.keyPrefix,
        count: PER_NODE,
        cap: CAP,
        windowMs: WINDOW_MS,
      };
      const nodes = [startNode(args), startNode(args)];
      await Promise.all(nodes.map((n) => n.ready));
      for (const n of nodes) n.go();
      const results = await Promise.all(nodes.map((n) => n.result));
      const total = (w: WindowKind) => results.reduce((sum, r) => sum + r[w], 0);
      assert.deepEqual(
        { fixed: total("fixed"), sliding: total("sliding") },
        { fixed: CAP, sliding: CAP },
        `per node: ${JSON.stringify(results)}`,
      );
    }));

  void it("two coordinations in one process × 500 concurrent consumes → exactly 100 allowed", () =>
    withCoordination(backend, async (c, t) => {
      await avoidWindowEnd(WINDOW_MS, 30_000);
      const other = await t.openAnother();
      try {
        const counts = await Promise.all(
          [c, other.coordination].flatMap((node) =>
            (["fixed", "sliding"] as const).map((w) => burst(node, w, PER_NODE)),
          ),
        );
        const [fixedA, slidingA, fixedB, slidingB] = counts;
        assert.deepEqual(
          { fixed: fixedA! + fixedB!, sliding: slidingA! + slidingB! },
          { fixed: CAP, sliding: CAP },
        );
      } finally {
        await other.close();
      }
    }));
}

for (const backend of coordinationBackends) {
  void describe(
    `Rate limits across nodes: ${backend}`,
    await coordinationTestOptions(backend),
    () => registerCases(backend),
  );
}
