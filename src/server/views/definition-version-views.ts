/**
 * Definition versions as the API shows them, with their schemas and examples
 * for /openapi.json (the shapes in one place, as inbox-views.ts and
 * openapi-examples.ts do for the inbox).
 */
import type * as Wire from "../../client/wire/index.ts";
import type { DefinitionVersion, VersionSummary } from "../../domain/definition-version.ts";
import type { DiffEntry } from "../../engine/index.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export const versionSummaryView = (v: VersionSummary): Wire.VersionSummary => ({
  key: v.key,
  version: v.version,
  status: v.status,
  createdAt: iso(v.createdAt),
  publishedAt: v.publishedAt === null ? null : iso(v.publishedAt),
  createdBy: v.createdBy,
});

export const versionView = (v: DefinitionVersion): Wire.DefinitionVersion => ({
  ...versionSummaryView(v),
  definition: JSON.parse(v.body) as unknown,
});

export const diffView = (d: {
  from: number;
  to: number;
  changes: DiffEntry[];
}): Wire.DefinitionDiff => d;

const timeOrNull = { type: ["string", "null"], format: "date-time" };

export const versionSummarySchema = {
  type: "object",
  required: ["key", "version", "status", "createdAt", "publishedAt", "createdBy"],
  properties: {
    key: { type: "string" },
    version: { type: "integer", description: "0 is the draft; published versions count from 1." },
    status: { type: "string", enum: ["draft", "published", "retracted"] },
    createdAt: { type: "string", format: "date-time", description: "Saved (draft) or published." },
    publishedAt: timeOrNull,
    createdBy: { type: "string", description: "Who saved (draft: last) or published it." },
  },
} as const;

export const versionSchema = {
  ...versionSummarySchema,
  required: [...versionSummarySchema.required, "definition"],
  properties: {
    ...versionSummarySchema.properties,
    definition: {
      type: "object",
      additionalProperties: true,
      description: "The definition document (GET /v1/definitions/schema).",
    },
  },
} as const;

export const diffSchema = {
  type: "object",
  required: ["from", "to", "changes"],
  properties: {
    from: { type: "integer" },
    to: { type: "integer" },
    changes: {
      type: "array",
      items: {
        type: "object",
        required: ["pointer", "op"],
        properties: {
          pointer: { type: "string", description: "JSON pointer into the definition." },
          op: { type: "string", enum: ["add", "remove", "replace"] },
          from: { description: "The old value (remove, replace)." },
          to: { description: "The new value (add, replace)." },
        },
      },
    },
  },
} as const;

const T0 = "2025-01-15T09:30:00.000Z";

export const definitionDocumentExample = {
  key: "leave",
  name: "Leave request",
  start: "approve",
  states: {
    approve: {
      type: "userTask",
      assignee: { group: "managers" },
      title: "Approve {{ vars.days }} days for {{ vars.employee }}",
      actions: { approve: { next: "done" }, reject: { next: "done" } },
      due: "P2D",
    },
    done: { type: "end" },
  },
};

export const versionSummaryExample = {
  key: "leave",
  version: 2,
  status: "published",
  createdAt: T0,
  publishedAt: T0,
  createdBy: "alice",
};

export const versionExample = {
  ...versionSummaryExample,
  definition: { ...definitionDocumentExample, version: 2 },
};

export const diffExample = {
  from: 1,
  to: 2,
  changes: [{ pointer: "/states/approve/due", op: "replace", from: "P3D", to: "P2D" }],
};
