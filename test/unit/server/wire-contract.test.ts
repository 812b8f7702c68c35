/**
 * The wire contract (src/client/wire) against what else describes the same JSON:
 * the domain types it re-expresses (checked by tsc: the assertions below do not
 * compile on drift) and the OpenAPI component schemas (checked here: each main
 * view's schema lists exactly the wire type's fields). The views themselves are
 * typed by the wire, so tsc holds them; this holds the published document.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FastifyInstance } from "fastify";
import type * as Wire from "../../../src/client/wire/index.ts";
import type { ProcessState } from "../../../src/domain/instance.ts";
import type { RunEventJson } from "../../../src/domain/run-event.ts";
import type { RunStatus } from "../../../src/domain/run.ts";
import type { TaskStatus } from "../../../src/domain/task.ts";
import type { ApiKeyListing } from "../../../src/engine/coordination/api-keys.ts";
import { registerSchemas } from "../../../src/server/openapi/component-schemas.ts";
import {
  versionSchema,
  versionSummarySchema,
} from "../../../src/server/views/definition-version-views.ts";
import type {
  AssignmentBody,
  NextAssignmentBody,
} from "../../../src/server/requests/request-bodies.ts";
import { runSchema } from "../../../src/server/routes/run-schemas.ts";

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <T extends true>(): T | undefined => undefined;

// The domain's unions and the wire's: a status or event the one adds and the other lacks.
same<Equal<Wire.RunStatus, RunStatus>>();
same<Equal<Wire.TaskStatus, TaskStatus>>();
same<Equal<Wire.ProcessState, ProcessState>>();
same<Equal<Wire.RunEvent, RunEventJson>>();
same<Equal<Wire.RunEvent["type"], RunEventJson["type"]>>();
same<Equal<Wire.ApiKeyListing["state"], ApiKeyListing["state"]>>();

// What the client sends is what the server reads: a request the wire allows fits its body.
type Fits<Body, Sent> = [Sent] extends [Body] ? true : false;
same<Fits<AssignmentBody, Wire.AssignmentRequest>>();
same<Fits<NextAssignmentBody, Wire.NextAssignment>>();

/**
 * Every field of T, once: `satisfies` refuses a record that misses one of T's keys
 * or has one T lacks, so these lists follow the wire types or fail tsc.
 */
type Fields<T> = Record<keyof T, true>;

const taskFields = {
  id: true,
  instanceId: true,
  rootInstanceId: true,
  definitionKey: true,
  assignee: true,
  assignedBy: true,
  status: true,
  claimedBy: true,
  claimedAt: true,
  completedBy: true,
  completedAt: true,
  vars: true,
  createdAt: true,
  title: true,
  description: true,
  priority: true,
  dueAt: true,
  followUpAt: true,
  overdue: true,
  form: true,
  formUi: true,
  actions: true,
  actionRequired: true,
  exclude: true,
  owner: true,
  delegation: true,
  action: true,
  comment: true,
} satisfies Fields<Wire.Task>;

const instanceFields = {
  id: true,
  kind: true,
  definitionKey: true,
  parentInstanceId: true,
  rootInstanceId: true,
  status: true,
  processState: true,
  vars: true,
  startedBy: true,
  createdAt: true,
  completedAt: true,
  onAllCompleted: true,
  joinedAt: true,
} satisfies Fields<Wire.Instance>;

const treeFields = {
  ...instanceFields,
  children: true,
  tasks: true,
} satisfies Fields<Wire.InstanceTree>;

const completionFields = {
  instanceId: true,
  allCompleted: true,
  total: true,
  open: true,
  claimed: true,
  done: true,
  cancelled: true,
} satisfies Fields<Wire.Completion>;

const definitionFields = {
  id: true,
  key: true,
  name: true,
  createdAt: true,
} satisfies Fields<Wire.Definition>;

const assignResultFields = {
  instanceId: true,
  task: true,
  tasks: true,
} satisfies Fields<Wire.AssignResult>;

const pageFields = { items: true, nextCursor: true } satisfies Fields<Wire.Page<unknown>>;

const runFields = {
  runId: true,
  workflow: true,
  status: true,
  input: true,
  output: true,
  error: true,
  rootInstanceId: true,
  parentRunId: true,
  startedBy: true,
  cancelRequested: true,
  createdAt: true,
  updatedAt: true,
} satisfies Fields<Wire.Run>;

const versionSummaryFields = {
  key: true,
  version: true,
  status: true,
  createdAt: true,
  publishedAt: true,
  createdBy: true,
} satisfies Fields<Wire.VersionSummary>;

const versionFields = {
  ...versionSummaryFields,
  definition: true,
} satisfies Fields<Wire.DefinitionVersion>;

interface ObjectSchema {
  $id?: string;
  properties?: Record<string, unknown>;
  required?: readonly string[];
}

/** The component schemas as registered, by $id (the server registers them on its app). */
function components(): Map<string, ObjectSchema> {
  const byId = new Map<string, ObjectSchema>();
  const app = { addSchema: (s: ObjectSchema) => byId.set(s.$id ?? "", s) };
  registerSchemas(app as unknown as FastifyInstance);
  return byId;
}

const sorted = (keys: Iterable<string>) => [...keys].sort();

function assertSchemaLists(name: string, schema: ObjectSchema | undefined, fields: object) {
  assert.ok(schema?.properties, `${name}: no such schema with properties`);
  const wire = sorted(Object.keys(fields));
  assert.deepEqual(sorted(Object.keys(schema.properties)), wire, `${name}: properties`);
  // Every field of a response is always sent, so the schema requires each.
  assert.deepEqual(sorted(schema.required ?? []), wire, `${name}: required`);
}

test("each main component schema lists exactly its wire type's fields, all required", () => {
  const c = components();
  const cases: [string, object][] = [
    ["Task", taskFields],
    ["Instance", instanceFields],
    ["InstanceTree", treeFields],
    ["Completion", completionFields],
    ["Definition", definitionFields],
    ["AssignResult", assignResultFields],
    ["TaskPage", pageFields],
    ["InstancePage", pageFields],
    ["DefinitionPage", pageFields],
  ];
  for (const [id, fields] of cases) assertSchemaLists(id, c.get(id), fields);
});

test("the run and version schemas list exactly their wire types' fields", () => {
  assertSchemaLists("run", runSchema, runFields);
  assertSchemaLists("version summary", versionSummarySchema, versionSummaryFields);
  assertSchemaLists("version", versionSchema, versionFields);
});
