/**
 * One in-process node on a fresh SQLite database, as most single-node tests
 * start one (test-taskflow.ts).
 */
import type { ConfigOverrides } from "../../src/config/config.ts";
import type { TaskflowOptions } from "../../src/composition/create-taskflow.ts";
import { startTestTaskflow, type TestNode } from "./test-taskflow.ts";

export type SqliteNode = TestNode;

export function startSqliteTaskflow(
  key: string,
  overrides: ConfigOverrides = {},
  options: TaskflowOptions = {},
): Promise<SqliteNode> {
  return startTestTaskflow({ name: "sqlite" }, key, overrides, options);
}
