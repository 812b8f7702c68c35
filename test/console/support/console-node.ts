/**
 * One createTaskflow node with the Console mounted, listening on a free
 * loopback port (the Console calls the engine over it), on a fresh database
 * and coordination: sqlite and postgres (coordination on the store's own
 * database) or redis (a SQLite store, coordination on Redis under a fresh
 * prefix). Login codes go to a recording sender (a test double of the
 * CodeSender port), so a test reads the code a person would receive.
 *
 * Every answer `call` returns was scanned for the API key, in its body and
 * in every header: the key must never reach a browser.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { InjectOptions } from "fastify";
import type { Logger } from "pino";
import type { ConfigOverrides } from "../../../src/config/config.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import type { CodeSender, LoginCode } from "../../../src/console/code-sender.ts";
import { createTaskflow, type Taskflow } from "../../../src/composition/create-taskflow.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../../coordination/support/coordination-backends.ts";
import { createTestDatabase } from "../../support/backends.ts";
import type { InjectResponse } from "../../../src/composition/taskflow-server.ts";

export type ConsoleBackend = "sqlite" | "postgres" | "redis";
export const consoleBackends: readonly ConsoleBackend[] = ["sqlite", "postgres", "redis"];

export const API_KEY = `key-${randomBytes(24).toString("base64url")}`;
export const ORIGIN = "http://console.test";
export const HOST = "console.test";

export const consoleTestOptions = (b: ConsoleBackend) => coordinationTestOptions(b);

export class RecordingSender implements CodeSender {
  readonly sent: LoginCode[] = [];
  send(message: LoginCode): Promise<void> {
    this.sent.push(message);
    return Promise.resolve();
  }
  last(userId: string): string {
    const found = this.sent.filter((m) => m.userId === userId).at(-1);
    assert.ok(found, `no code was sent to ${userId}`);
    return found.code;
  }
}

export interface ConsoleNode {
  taskflow: Taskflow;
  /** The node's own test database (dropped by close) and coordination key prefix. */
  databaseUrl: string;
  keyPrefix: string;
  sender: RecordingSender;
  /** A browser's request to the Console (Host console.test); the answer is scanned for the key. */
  call(options: InjectOptions): Promise<InjectResponse>;
  /** The engine's own API with the key, as alice unless told (to arrange and to check). */
  engine(options: InjectOptions, actor?: string): Promise<InjectResponse>;
  /** Every answer `call` saw. */
  readonly answers: InjectResponse[];
  close(): Promise<void>;
}

export const USERS = "alice,bob,carol,dave";
/** bob: plain user; carol: operator; dave: admin. */
export const GROUPS = { ops: ["carol"], admins: ["dave"], reviewers: ["bob", "alice"] };

export interface NodeOptions {
  logger?: Logger | undefined;
  /** false: no CodeSender given (the log in development; no code login behind a trusted proxy). */
  withSender?: boolean;
}

export async function startConsoleNode(
  backend: ConsoleBackend,
  overrides: ConfigOverrides = {},
  { logger, withSender = true }: NodeOptions = {},
): Promise<ConsoleNode> {
  const database = await createTestDatabase({
    name: backend === "postgres" ? "postgres" : "sqlite",
  });
  const keyPrefix = `tftest:${randomBytes(6).toString("hex")}:`;
  const config = loadConfig({
    env: {},
    overrides: {
      addr: "127.0.0.1:0",
      databaseUrl: database.url,
      nodeEnv: "production",
      apiKeys: [API_KEY],
      users: USERS,
      groups: GROUPS,
      logLevel: "silent",
      keyPrefix,
      coordination: backend === "redis" ? "redis" : "sql",
      ...(backend === "redis" ? { redisUrl: REDIS_TEST_URL } : {}),
      consoleOperatorGroups: ["ops"],
      consoleAdminGroups: ["admins"],
      ...overrides,
    },
  });
  const sender = new RecordingSender();
  let taskflow: Taskflow;
  try {
    taskflow = await createTaskflow(config, {
      console: withSender ? { codeSender: sender } : {},
      logger,
    });
    await taskflow.listen();
  } catch (e) {
    await database.drop();
    throw e;
  }
  const answers: InjectResponse[] = [];
  return {
    taskflow,
    databaseUrl: database.url,
    keyPrefix,
    sender,
    answers,
    async call(options) {
      const r = await taskflow.server.inject({
        ...options,
        headers: { host: HOST, ...options.headers },
      });
      assertNoKey(r);
      answers.push(r);
      return r;
    },
    engine(options, actor = "alice") {
      return taskflow.server.inject({
        ...options,
        headers: { "x-api-key": API_KEY, "x-actor-id": actor, ...options.headers },
      });
    },
    async close() {
      await taskflow.close();
      await database.drop();
      if (backend === "redis") await deleteRedisPrefix(keyPrefix);
    },
  };
}

export function assertNoKey(r: InjectResponse): void {
  assert.ok(!r.body.includes(API_KEY), "the API key is in a Console answer's body");
  for (const [name, value] of Object.entries(r.headers)) {
    assert.ok(!String(value).includes(API_KEY), `the API key is in the Console header ${name}`);
  }
}

/** name → Set-Cookie line of the answer. */
export function setCookies(r: InjectResponse): Map<string, string> {
  const raw = r.headers["set-cookie"];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return new Map(lines.map((l) => [l.slice(0, l.indexOf("=")), l]));
}

/** The browser's cookie jar after the answer: name → value (a deleted cookie is gone). */
export function jarFrom(r: InjectResponse, jar: Record<string, string> = {}) {
  const next = { ...jar };
  for (const [name, line] of setCookies(r)) {
    const value = line.slice(name.length + 1, line.indexOf(";"));
    if (/Max-Age=0/.test(line)) delete next[name];
    else next[name] = value;
  }
  return next;
}

export const cookieHeader = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");

/** A logged-in browser: its cookies and the headers its page sends on a mutation. */
export interface Browser {
  jar: Record<string, string>;
  /** Cookie only (a GET). */
  read(): Record<string, string>;
  /** Cookie, Origin and X-CSRF-Token (a mutation from the Console's page). */
  write(): Record<string, string>;
}

export function browser(jar: Record<string, string>): Browser {
  return {
    jar,
    read: () => ({ cookie: cookieHeader(jar) }),
    write: () => ({
      cookie: cookieHeader(jar),
      origin: ORIGIN,
      "x-csrf-token": jar.tf_csrf ?? "",
    }),
  };
}

/** Logs a user in by code (asks, reads the recorded code, verifies). */
export async function logIn(node: ConsoleNode, userId: string): Promise<Browser> {
  const headers = { origin: ORIGIN };
  const asked = await node.call({
    method: "POST",
    url: "/console/api/auth/code",
    headers,
    payload: { userId },
  });
  assert.equal(asked.statusCode, 202, asked.body);
  const verified = await node.call({
    method: "POST",
    url: "/console/api/auth/verify",
    // The attempt cookie: a code is entered in the browser that asked for it.
    headers: { ...headers, ...browser(jarFrom(asked)).read() },
    payload: { userId, code: node.sender.last(userId) },
  });
  assert.equal(verified.statusCode, 200, verified.body);
  return browser(jarFrom(verified));
}
