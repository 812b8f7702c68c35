/**
 * `taskflow definitions publish FILE` writes to the database of running
 * nodes: it must take the path a node's publish takes (the definition's lock,
 * a fence before the write, its completion after), or the nodes keep serving
 * the version they cached before it. PostgreSQL and MariaDB (a SQLite file is
 * held by one process; a CLI beside a running node is a server database's case).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runDefinitionsCli } from "../../src/cli/definitions-cli.ts";
import {
  definitionDoc,
  latest,
  publish,
  TENANT,
  variantOptions,
  variants,
  withCacheNodes,
} from "./support/cache-nodes.ts";

const chosen = variants.filter((v) => v.backend.name !== "sqlite");

for (const v of chosen) {
  void describe(`definitions publish from the CLI on ${v.backend.name}, ${v.provider} provider`, async () => {
    const opts = await variantOptions(v);

    void it("a running node serves the CLI's version at once, not its cached one", opts, () =>
      withCacheNodes(v, async ({ a, b, url }) => {
        assert.equal(await publish(a, "leave", "v1"), 1);
        for (const node of [a, b]) {
          assert.equal(await latest(node, "leave"), 1);
          assert.equal(await latest(node, "leave"), 1);
        }
        const dir = await mkdtemp(join(tmpdir(), "taskflow-cli-"));
        const out: string[] = [];
        try {
          const file = join(dir, "leave.json");
          await writeFile(file, JSON.stringify(definitionDoc("leave", "from the CLI")));
          const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
          const env = { DATABASE_URL: url, WF_DEFINITION_CACHE_PREFIX: "tftest:cli:" };
          const code = await runDefinitionsCli(["publish", file, "--tenant", TENANT], env, io);
          assert.equal(code, 0, out.join(""));
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
        assert.deepEqual(await a.database.cacheLedger.listIncomplete(), [], "its fence completed");
        for (const node of [a, b]) assert.equal(await latest(node, "leave"), 2, node.name);
      }),
    );
  });
}
