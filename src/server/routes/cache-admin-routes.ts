/**
 * The definition cache's consistency ledger, for operators
 * (docs/definition-cache.md, Orphaned fences): the incomplete fences with
 * their owners and ages, and completing one whose writer died.
 *
 * The ledger is deployment-wide — one per database, shared by every tenant —
 * so these routes take no X-Tenant-Id and show no tenant data (a fence names
 * a scope and a process, not a definition). Who may call them: any key of
 * every tenant (WF_API_KEYS, an unscoped stored key); a stored key scoped to a
 * tenant is refused with 403, since completing a fence changes what every
 * tenant's readers do.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type * as Wire from "../../client/wire/index.ts";
import { taskflowError } from "../../domain/errors.ts";
import type { CacheLedger, IncompleteMutation } from "../../engine/index.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";

export interface CacheAdminRouteOptions {
  cacheLedger: CacheLedger;
}

const TAGS = ["admin"];
const MUTATION_ID_PATTERN = "^[A-Za-z0-9._:-]{1,64}$";

const mutationSchema = {
  type: "object",
  required: ["id", "mutationId", "scope", "owner", "createdAt", "ageMs"],
  properties: {
    id: { type: "integer", description: "The ledger row's id (ids only grow)." },
    mutationId: { type: "string" },
    scope: { type: "string", enum: ["workflow", "routes"] },
    owner: { type: "string", description: "host/pid/boot id of the process that began it." },
    createdAt: { type: "string", format: "date-time" },
    ageMs: { type: "integer", description: "Milliseconds since createdAt, by this node's clock." },
  },
} as const;

const mutationExample = {
  id: 1042,
  mutationId: "0b6f3f0e-2d5c-4a8e-9f57-6a4c1d2e3f40",
  scope: "workflow",
  owner: "node-a/4711/5d2c8a9e-1b7f-4c3d-8e6a-2f9b0c1d4e5f",
  createdAt: "2026-12-01T21:40:00.000Z",
  ageMs: 420000,
};

const completionSchema = {
  type: "object",
  required: ["mutationId", "completed"],
  properties: {
    mutationId: { type: "string" },
    completed: {
      type: "boolean",
      description: "False when the fence was already completed: nothing changed.",
    },
  },
} as const;

function requireEveryTenantKey(req: FastifyRequest): void {
  if (req.apiKeyTenant !== null && req.apiKeyTenant !== undefined) {
    throw taskflowError("EveryTenantKeyRequired", {
      tenant: req.apiKeyTenant,
      detail: "the cache admin routes need a key of every tenant",
    });
  }
}

const view = (m: IncompleteMutation): Wire.CacheMutation => ({
  ...m,
  createdAt: m.createdAt.toISOString(),
});

export function cacheAdminRoutes(
  app: FastifyInstance,
  { cacheLedger }: CacheAdminRouteOptions,
  done: () => void,
) {
  app.addHook("onRequest", (req, _reply, next) => {
    requireEveryTenantKey(req);
    next();
  });

  app.get(
    "/v1/admin/cache/mutations",
    {
      schema: {
        tags: TAGS,
        summary: "Incomplete cache mutations (fences), oldest first",
        description:
          "Deployment-wide. A fence is normally incomplete for the few milliseconds a " +
          "definition write takes; one that stays belongs to a process that died mid-write, " +
          "and keeps every node's readers of its scope off the cache until completed.",
        response: {
          200: jsonResponse(
            "The incomplete fences (at most 1000)",
            {
              type: "object",
              required: ["items"],
              properties: { items: { type: "array", items: mutationSchema } },
            },
            { items: [mutationExample] },
          ),
          ...apiErrors({}, "Forbidden"),
        },
      },
    },
    async () => ({ items: (await cacheLedger.listIncomplete()).map(view) }),
  );

  app.post<{ Params: { id: string } }>(
    "/v1/admin/cache/mutations/:id/complete",
    {
      schema: {
        tags: TAGS,
        summary: "Complete an orphaned cache mutation",
        description:
          "Marks the fence completed and raises its scope's cache revision, as its writer " +
          "would have. Complete a fence only once its writer is gone (see its owner): the " +
          "cache is then used again with data read after the write. Idempotent: an already " +
          "completed fence answers `completed: false`.",
        params: {
          type: "object",
          required: ["id"],
          properties: { id: { type: "string", pattern: MUTATION_ID_PATTERN } },
        },
        response: {
          200: jsonResponse("Completed, or already complete", completionSchema, {
            mutationId: mutationExample.mutationId,
            completed: true,
          }),
          ...apiErrors({}, "Forbidden", "NotFound"),
        },
      },
    },
    async (req) => {
      const { completed } = await cacheLedger.completeOrphan(req.params.id);
      req.log.info(
        { mutationId: req.params.id, keyId: req.apiKeyId, completed },
        "cache mutation completed by an operator",
      );
      return { mutationId: req.params.id, completed } satisfies Wire.CacheMutationCompleted;
    },
  );
  done();
}
