/**
 * The deployments the REST suites run on (test/support/deployment.ts) are what
 * they claim: the two MariaDB deployments differ only in WF_COORDINATION=redis
 * plus REDIS_URL (and the fresh database and key prefix each test gets); the
 * sql one has no Redis anywhere; requests are spread over every node in turn.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import type { ConfigOverrides, TaskflowConfig } from "../../src/config/config.ts";
import { deployments, redisSwitch, roundRobin } from "../support/deployment.ts";

const byName = (name: string) => deployments.find((k) => k.name === name)!;
const sql = byName("mysql-2-nodes");
const redis = byName("mysql-2-nodes-redis");

/** A config without what is fresh per test: the database and the key prefix. */
const shape = ({ databaseUrl: _d, keyPrefix: _k, ...rest }: TaskflowConfig) => rest;

void describe("deployments", async () => {
  void test("sqlite is one node; both MariaDB deployments are two", () => {
    assert.deepEqual(
      deployments.map((k) => [k.name, k.nodeCount]),
      [
        ["sqlite", 1],
        ["mysql-2-nodes", 2],
        ["mysql-2-nodes-redis", 2],
      ],
    );
  });

  void test(
    "mysql-2-nodes has no Redis; mysql-2-nodes-redis is the same config plus the Redis switch",
    await redis.testOptions(),
    async () => {
      const overrides: ConfigOverrides = {
        apiKeys: ["deploy-key-0123456789abcdefghij"],
        logLevel: "silent",
      };
      const a = await sql.prepare(overrides);
      const b = await redis.prepare(overrides);
      try {
        assert.equal(a.config.coordination, "sql");
        assert.equal(a.config.redisUrl, null);
        assert.deepEqual(a.config.redisSentinels, []);
        assert.match(a.config.databaseUrl, /^mysql:/);
        assert.match(b.config.databaseUrl, /^mysql:/);
        assert.deepEqual(redisSwitch, { coordination: "redis", redisUrl: redisSwitch.redisUrl });
        assert.deepEqual(shape(b.config), { ...shape(a.config), ...redisSwitch });
      } finally {
        await a.cleanUp();
        await b.cleanUp();
      }
    },
  );

  void test("inject spreads requests over the nodes in turn", async () => {
    const seen: number[] = [];
    const app = (i: number) => ({
      inject: (_o: InjectOptions | string) => {
        seen.push(i);
        return Promise.resolve({} as LightMyRequestResponse);
      },
    });
    const inject = roundRobin([app(0), app(1)] as never);
    for (let i = 0; i < 5; i++) await inject("/healthz");
    assert.deepEqual(seen, [0, 1, 0, 1, 0]);
  });
});
