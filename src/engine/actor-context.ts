/** Who is acting, for which tenant. The actor comes only from X-Actor-Id (never a body field). */
export interface ActorContext {
  tenantId: string;
  actorId: string;
}

/** Reads that need a tenant but not an actor. */
export interface TenantContext {
  tenantId: string;
}
