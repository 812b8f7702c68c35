/**
 * The definition cache providers the contract suite runs against, unchanged:
 * memory and Redis (127.0.0.1:6379 unless TF_TEST_REDIS_URL), each isolated
 * by a fresh key prefix whose keys are deleted after the test.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import {
  memoryCacheProvider,
  type MemoryCacheEntry,
} from "../../../src/adapters/definition-cache/memory-cache-provider.ts";
import { openCacheProvider } from "../../../src/adapters/definition-cache/open-cache-provider.ts";
import type { CacheProvider } from "../../../src/engine/definition-cache/cache-provider-port.ts";
import {
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../../coordination/support/coordination-backends.ts";

export type CacheProviderName = "memory" | "redis";
export const cacheProviderNames: readonly CacheProviderName[] = ["memory", "redis"];

export interface Warning {
  fields: Record<string, unknown>;
  message: string;
}

/** Collects what a provider warns about. */
export function recordingLog(): {
  warnings: Warning[];
  warn(f: Record<string, unknown>, m: string): void;
} {
  const warnings: Warning[] = [];
  return { warnings, warn: (fields, message) => warnings.push({ fields, message }) };
}

export const warningsOf = (warnings: readonly Warning[], kind: string) =>
  warnings.filter((w) => w.fields.kind === kind);

export const DEFAULTS = { slidingMs: 60_000, absoluteMs: 600_000 };

export interface TestCacheProvider {
  provider: CacheProvider;
  warnings: Warning[];
  /** Every key of this test starts with it. */
  prefix: string;
  /** Replaces the entry's payload with text that is not JSON (the entry lives for a minute). */
  corrupt(key: string): Promise<void>;
  close(): Promise<void>;
}

const freshPrefix = () => `tftest:defs:${randomBytes(6).toString("hex")}:`;

export function openTestCacheProvider(name: CacheProviderName): TestCacheProvider {
  const prefix = freshPrefix();
  const log = recordingLog();
  if (name === "memory") {
    const entries = new LRUCache<string, MemoryCacheEntry>({ max: 10_000 });
    const provider = memoryCacheProvider({ defaults: DEFAULTS, log, entries });
    return {
      provider,
      warnings: log.warnings,
      prefix,
      corrupt(key) {
        const at = Date.now();
        entries.set(key, {
          text: "{not json",
          slidingMs: 0,
          deadline: at + 60_000,
          expiresAt: at + 60_000,
        });
        return Promise.resolve();
      },
      close: () => provider.close(),
    };
  }
  const provider = openCacheProvider(
    {
      definitionCache: "redis",
      definitionCacheEnabled: true,
      definitionCacheSliding: DEFAULTS.slidingMs,
      definitionCacheAbsolute: DEFAULTS.absoluteMs,
      redisUrl: REDIS_TEST_URL,
      redisSentinels: [],
      redisSentinelName: null,
    },
    { log },
  );
  const admin = new Redis(REDIS_TEST_URL);
  return {
    provider,
    warnings: log.warnings,
    prefix,
    async corrupt(key) {
      await admin.hset(key, { payload: "{not json", slide: "0", deadline: "0" });
      await admin.pexpire(key, 60_000);
    },
    async close() {
      await provider.close();
      admin.disconnect();
      await deleteRedisPrefix(prefix);
    },
  };
}
