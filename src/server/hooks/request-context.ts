/**
 * Who is acting, for which tenant: read only from headers (validated by the
 * route schemas), never from a body field.
 */
import type { FastifyRequest } from "fastify";
import type { ActorContext, TenantContext } from "../../engine/index.ts";

export const DEFAULT_TENANT = "default";

export interface ActorHeaders {
  "x-actor-id": string;
  "x-tenant-id"?: string;
}

export interface TenantHeaders {
  "x-actor-id"?: string;
  "x-tenant-id"?: string;
}

export function tenantContext(req: FastifyRequest<{ Headers: TenantHeaders }>): TenantContext {
  return { tenantId: req.headers["x-tenant-id"] ?? DEFAULT_TENANT };
}

export function actorContext(req: FastifyRequest<{ Headers: ActorHeaders }>): ActorContext {
  return {
    tenantId: req.headers["x-tenant-id"] ?? DEFAULT_TENANT,
    actorId: req.headers["x-actor-id"],
  };
}
